import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ToolDefinition } from '../contract/tool.js';
import { canonicalJson, escapePointerToken, isPlainObject } from '../contract/canonical-json.js';
import { FORMAT_CHECKERS, SUPPORTED_FORMATS } from './formats.js';
import { checkToolSchema } from './schema-subset.js';
import { toolKey } from './tool-identity.js';
import { versionedName } from '../contract/versioned-name.js';

/** At most this many errors are reported per rejected call. */
export const MAX_ARGUMENT_ERRORS = 10;
/** Each error message is cut to this many characters. */
export const MAX_ARGUMENT_ERROR_MESSAGE = 200;
/** Untrusted tool names and versions echoed in a rejection are cut to this many characters. */
const MAX_ECHO = 100;

/** One argument problem, located by a JSON pointer into the arguments. */
export interface ArgumentError {
  /** JSON pointer (RFC 6901) into the arguments; `''` is the whole argument object. */
  readonly pointer: string;
  /** The schema keyword that failed (`required`, `type`, `additionalProperties`, ...), or `tool` for tool.unknown. */
  readonly keyword: string;
  readonly message: string;
}

/**
 * A structured, bounded rejection of a tool call, written for the model to read and correct itself:
 * - `tool.invalid_arguments`: the arguments do not match the registered schema;
 * - `tool.unknown`: no tool with that exact name and version is available.
 */
export interface ToolCallRejection {
  readonly code: 'tool.invalid_arguments' | 'tool.unknown';
  readonly tool: string;
  readonly version: string;
  /** One-line summary. */
  readonly message: string;
  /** At most {@link MAX_ARGUMENT_ERRORS} errors. */
  readonly errors: readonly ArgumentError[];
  /** How many further errors were left out. */
  readonly omittedErrors: number;
}

/** Outcome of validating the arguments of one call. Never throws for bad input. */
export type ArgumentValidationResult =
  | { readonly ok: true; readonly args: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly rejection: ToolCallRejection };

/** Validates arguments of one tool definition. */
export type ArgumentValidateFn = (args: unknown) => ArgumentValidationResult;

/** Distinct schemas whose compiled validators are kept per module instance; the cache is emptied beyond it. */
export const MAX_SHARED_VALIDATORS = 1024;

let sharedAjv: Ajv | undefined;
const sharedValidators = new Map<string, ValidateFunction>();

/**
 * The module's one ajv instance, created on first use. ajv's meta-schema is neither added nor used
 * (`meta: false`, `validateSchema: false`): compiling the draft-07 meta-schema cost ~9 ms of CPU in
 * every workflow run, and every schema is checked by {@link checkToolSchema} (the supported subset,
 * stricter than the meta-schema; `$schema` is outside it) before it is compiled. `strict: true` still
 * rejects unknown keywords at compile time.
 */
function ajv(): Ajv {
  sharedAjv ??= new Ajv({
    allErrors: true,
    strict: true,
    meta: false,
    validateSchema: false,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    logger: false,
    formats: Object.fromEntries(
      SUPPORTED_FORMATS.map((f) => [f, { type: 'string', validate: FORMAT_CHECKERS[f] }]),
    ),
  });
  return sharedAjv;
}

/**
 * The compiled validator of `definition.parameters`, shared by every validator of this module
 * instance and keyed by the schema's canonical JSON (equal schemas compile once). Compiled
 * validators are pure functions of the schema, so sharing them cannot change a result.
 * @throws {RegistryError} when the schema is outside the supported subset (see {@link checkToolSchema}).
 */
function compileShared(definition: ToolDefinition): ValidateFunction {
  const key = canonicalJson(definition.parameters);
  let fn = sharedValidators.get(key);
  if (fn === undefined) {
    checkToolSchema(toolKey(definition.name, definition.version), definition.parameters);
    if (sharedValidators.size >= MAX_SHARED_VALIDATORS) {
      // ajv keeps every compiled schema too: start over with a fresh instance.
      sharedValidators.clear();
      sharedAjv = undefined;
    }
    fn = ajv().compile(definition.parameters);
    sharedValidators.set(key, fn);
  }
  return fn;
}

/**
 * Validates model-supplied arguments against registered tool schemas with ajv. No coercion, no
 * defaults filled in, no properties removed: the arguments that pass are exactly the arguments given.
 *
 * Each distinct schema is compiled once per module instance (shared by all validators, keyed by its
 * canonical JSON) and looked up once per definition object. In the Temporal workflow sandbox every
 * workflow run evaluates the bundle's modules afresh (SDK 1.24, `reuseV8Context`: each run has its
 * own webpack module cache), so there the sharing spans one run; in the worker it spans the process.
 *
 * Sandbox-safe: no Node builtins, no I/O, no clock or randomness, so it runs inside the Temporal
 * workflow sandbox. ajv generates validators with `new Function`, which works in a `vm` context
 * created without `codeGeneration: { strings: false }` (Temporal creates its contexts that way);
 * test/unit/registry/sandbox-bundle.test.ts runs it inside `vm.runInNewContext`.
 *
 * A schema is checked against the supported subset before it is first compiled; an unchecked schema
 * outside it makes `validate` throw that `RegistryError` (definitions from the registry never do).
 */
export class ArgumentValidator {
  private readonly compiled = new WeakMap<ToolDefinition, ValidateFunction>();

  /** The validate function of `definition`, compiled on first use. */
  validatorFor(definition: ToolDefinition): ArgumentValidateFn {
    return (args) => this.validate(definition, args);
  }

  /** Validates `args` against `definition.parameters`. Never throws for bad arguments. */
  validate(definition: ToolDefinition, args: unknown): ArgumentValidationResult {
    const tool = definition.name;
    const version = definition.version;
    if (!isPlainObject(args)) {
      return reject('tool.invalid_arguments', tool, version, [
        { pointer: '', keyword: 'type', message: 'arguments must be a JSON object' },
      ]);
    }
    const fn = this.compile(definition);
    if (fn(args)) return { ok: true, args };
    return reject('tool.invalid_arguments', tool, version, (fn.errors ?? []).map(toArgumentError));
  }

  private compile(definition: ToolDefinition): ValidateFunction {
    let fn = this.compiled.get(definition);
    if (fn === undefined) {
      fn = compileShared(definition);
      this.compiled.set(definition, fn);
    }
    return fn;
  }
}

/**
 * Validates tool calls against a fixed set of definitions (for example a registry snapshot pinned by
 * a run). Sandbox-safe like {@link ArgumentValidator}.
 */
export class ToolCallValidator {
  private readonly byKey = new Map<string, ToolDefinition>();

  constructor(
    definitions: readonly ToolDefinition[],
    private readonly validator: ArgumentValidator = new ArgumentValidator(),
  ) {
    for (const d of definitions) this.byKey.set(toolKey(d.name, d.version), d);
  }

  /**
   * Validates one call. A call to a name/version not in the set yields a `tool.unknown` rejection;
   * bad arguments yield `tool.invalid_arguments`. Never throws for untrusted input.
   */
  validate(tool: unknown, version: unknown, args: unknown): ArgumentValidationResult {
    const definition =
      typeof tool === 'string' && typeof version === 'string'
        ? this.byKey.get(toolKey(tool, version))
        : undefined;
    if (definition === undefined) return unknownToolRejection(tool, version);
    return this.validator.validate(definition, args);
  }
}

/** The `tool.unknown` rejection for a call to a tool that is not registered (name and version echoed, bounded). */
export function unknownToolRejection(
  tool: unknown,
  version: unknown,
): { ok: false; rejection: ToolCallRejection } {
  const name = echo(tool);
  const ver = echo(version);
  return {
    ok: false,
    rejection: {
      code: 'tool.unknown',
      tool: name,
      version: ver,
      message: truncate(
        `tool ${versionedName(name, ver)} is not available; call one of the tools you were given, with its exact version`,
      ),
      errors: [
        { pointer: '', keyword: 'tool', message: truncate(`unknown tool ${versionedName(name, ver)}`) },
      ],
      omittedErrors: 0,
    },
  };
}

function reject(
  code: ToolCallRejection['code'],
  tool: string,
  version: string,
  all: ArgumentError[],
): { ok: false; rejection: ToolCallRejection } {
  const errors = all.slice(0, MAX_ARGUMENT_ERRORS);
  const summary = errors
    .map((e) => `${e.pointer === '' ? '(arguments)' : e.pointer}: ${e.message}`)
    .join('; ');
  return {
    ok: false,
    rejection: {
      code,
      tool,
      version,
      message: truncate(`invalid arguments for ${versionedName(tool, version)}: ${summary}`),
      errors,
      omittedErrors: all.length - errors.length,
    },
  };
}

function toArgumentError(e: ErrorObject): ArgumentError {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const prop = String(params.missingProperty);
      return {
        pointer: `${e.instancePath}/${escapePointerToken(prop)}`,
        keyword: 'required',
        message: truncate(`missing required property '${prop}'`),
      };
    }
    case 'additionalProperties': {
      const prop = String(params.additionalProperty);
      return {
        pointer: `${e.instancePath}/${escapePointerToken(prop)}`,
        keyword: 'additionalProperties',
        message: truncate(`property '${prop}' is not allowed`),
      };
    }
    case 'enum':
      return {
        pointer: e.instancePath,
        keyword: 'enum',
        message: truncate(`must be one of ${JSON.stringify(params.allowedValues)}`),
      };
    case 'const':
      return {
        pointer: e.instancePath,
        keyword: 'const',
        message: truncate(`must be ${JSON.stringify(params.allowedValue)}`),
      };
    default:
      return {
        pointer: e.instancePath,
        keyword: e.keyword,
        message: truncate(e.message ?? `fails ${e.keyword}`),
      };
  }
}

function truncate(text: string): string {
  return text.length > MAX_ARGUMENT_ERROR_MESSAGE
    ? `${text.slice(0, MAX_ARGUMENT_ERROR_MESSAGE - 3)}...`
    : text;
}

function echo(value: unknown): string {
  const text = typeof value === 'string' ? value : String(typeof value);
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO - 3)}...` : text;
}
