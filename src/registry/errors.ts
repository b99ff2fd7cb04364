import { HarnessError } from '../contract/errors.js';
import { versionedName } from '../contract/versioned-name.js';

/**
 * Every error code the tool registry raises. Codes are stable: they appear in audit records and
 * tests match on them. All registration errors are terminal (retrying the same registration fails
 * the same way).
 */
export const REGISTRY_ERROR_CODES = [
  'registry.invalid_name',
  'registry.invalid_version',
  'registry.unknown_effect',
  'registry.invalid_description',
  'registry.invalid_definition',
  'registry.schema_not_closed',
  'registry.schema_unsupported',
  'registry.schema_invalid',
  'registry.schema_too_large',
  'registry.conflict',
  'registry.invalid_executor',
  'registry.not_found',
] as const;
export type RegistryErrorCode = (typeof REGISTRY_ERROR_CODES)[number];

/** Base class of all registry errors; `code` is one of {@link REGISTRY_ERROR_CODES}. */
export abstract class RegistryError extends HarnessError {
  declare readonly code: RegistryErrorCode;
  constructor(code: RegistryErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}

/** `registry.invalid_name`: not a lowercase namespaced identifier (see `TOOL_NAME_PATTERN`). */
export class InvalidToolNameError extends RegistryError {
  constructor(name: unknown, reason: string) {
    super('registry.invalid_name', `invalid tool name ${describe(name)}: ${reason}`, {
      name: describe(name),
      reason,
    });
  }
}

/** `registry.invalid_version`: not `vN` with N >= 1 and no leading zero. */
export class InvalidToolVersionError extends RegistryError {
  constructor(version: unknown) {
    super(
      'registry.invalid_version',
      `invalid tool version ${describe(version)}: expected vN with N >= 1, no leading zeros`,
      {
        version: describe(version),
      },
    );
  }
}

/** `registry.unknown_effect`: the effect is not exactly `read` or `write`. Effects are never inferred. */
export class UnknownEffectError extends RegistryError {
  constructor(tool: string, effect: unknown) {
    super(
      'registry.unknown_effect',
      `tool ${tool}: unknown effect ${describe(effect)}; declare 'read' or 'write'`,
      {
        tool,
        effect: describe(effect),
      },
    );
  }
}

/** `registry.invalid_description`: empty, blank, not a string or longer than the limit. */
export class InvalidDescriptionError extends RegistryError {
  constructor(tool: string, reason: string) {
    super('registry.invalid_description', `tool ${tool}: invalid description: ${reason}`, { tool, reason });
  }
}

/** `registry.invalid_definition`: the definition is not an object or has fields outside ToolDefinition. */
export class InvalidDefinitionError extends RegistryError {
  constructor(reason: string) {
    super('registry.invalid_definition', `invalid tool definition: ${reason}`, { reason });
  }
}

/** `registry.schema_not_closed`: an object schema (root or nested) lacks `additionalProperties: false`, or the root is not an object schema. */
export class SchemaNotClosedError extends RegistryError {
  constructor(tool: string, pointer: string, reason: string) {
    super(
      'registry.schema_not_closed',
      `tool ${tool}: schema at ${showPointer(pointer)} is not closed: ${reason}`,
      {
        tool,
        pointer,
        reason,
      },
    );
  }
}

/** `registry.schema_unsupported`: a keyword outside the supported subset (message and details name keyword and pointer). */
export class SchemaUnsupportedError extends RegistryError {
  constructor(tool: string, keyword: string, pointer: string, reason: string) {
    super(
      'registry.schema_unsupported',
      `tool ${tool}: unsupported schema keyword '${keyword}' at ${showPointer(pointer)}: ${reason}`,
      { tool, keyword, pointer, reason },
    );
  }
}

/** `registry.schema_invalid`: a supported keyword with a malformed value (negative length, bad pattern, ...). */
export class SchemaInvalidError extends RegistryError {
  constructor(tool: string, keyword: string, pointer: string, reason: string) {
    super(
      'registry.schema_invalid',
      `tool ${tool}: invalid value of '${keyword}' at ${showPointer(pointer)}: ${reason}`,
      {
        tool,
        keyword,
        pointer,
        reason,
      },
    );
  }
}

/** `registry.schema_too_large`: over one of the `SCHEMA_LIMITS` (bytes, depth or property count). */
export class SchemaTooLargeError extends RegistryError {
  constructor(tool: string, limit: 'bytes' | 'depth' | 'properties', actual: number, max: number) {
    super(
      'registry.schema_too_large',
      `tool ${tool}: schema ${limit} ${actual} exceeds the limit of ${max}`,
      {
        tool,
        limit,
        actual,
        max,
      },
    );
  }
}

/** `registry.conflict`: the same name and version is already registered with another definition or executor. */
export class ToolConflictError extends RegistryError {
  constructor(tool: string, version: string, reason: 'definition_differs' | 'executor_differs') {
    super(
      'registry.conflict',
      `tool ${versionedName(tool, version)} is already registered with a different ${reason === 'definition_differs' ? 'definition' : 'executor'}`,
      {
        tool,
        version,
        reason,
      },
    );
  }
}

/** `registry.invalid_executor`: the executor has no `execute` function, or a `reconcile` that is not a function, or `reconcile` on a read tool. */
export class InvalidExecutorError extends RegistryError {
  constructor(tool: string, reason: string) {
    super('registry.invalid_executor', `tool ${tool}: invalid executor: ${reason}`, { tool, reason });
  }
}

/** `registry.not_found`: no tool with that exact name and version is registered. */
export class ToolNotFoundError extends RegistryError {
  constructor(tool: string, version?: string) {
    const ref = version === undefined ? describe(tool) : versionedName(describe(tool), describe(version));
    super('registry.not_found', `tool ${ref} is not registered`, {
      tool: describe(tool),
      version: version === undefined ? null : describe(version),
    });
  }
}

/** Bounded, printable rendering of an untrusted value for messages. */
function describe(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined ? 'undefined' : safeString(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function showPointer(pointer: string): string {
  return pointer === '' ? '/ (root)' : pointer;
}
