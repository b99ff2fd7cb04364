import { MAX_FAST_TIMEOUT_MS, type FastRead, type ToolDefinition } from '../contract/tool.js';
import { isPlainObject } from '../contract/canonical-json.js';
import { InvalidDefinitionError, InvalidDescriptionError, UnknownEffectError } from './errors.js';
import { checkToolSchema } from './schema-subset.js';
import { assertToolName, assertToolVersion } from './tool-identity.js';
import { versionedName } from '../contract/versioned-name.js';

/** Maximum length of a tool description, in characters. */
export const MAX_DESCRIPTION_LENGTH = 2048;

const DEFINITION_FIELDS = [
  'description',
  'effect',
  'fast',
  'idempotentByKey',
  'name',
  'parameters',
  'version',
] as const;

/**
 * Checks a tool definition against every registration rule and returns a deep-frozen copy, so a
 * later change to the caller's object cannot change what was checked. Pure and sandbox-safe.
 *
 * Checks run in this order: shape (exactly the ToolDefinition fields), name, version, effect,
 * `idempotentByKey`, `fast`, description, parameter schema. The copy carries `idempotentByKey` only
 * when it is `true` (absent and `false` mean the same), so a definition without it keeps its digest.
 *
 * @throws {InvalidDefinitionError} `registry.invalid_definition` when not an object, with other fields,
 *   with an `idempotentByKey` that is not a boolean or is `true` on a read tool, or with a `fast` that
 *   is not `{ timeoutMs }` (an integer from 1 to {@link MAX_FAST_TIMEOUT_MS}) or is on a write tool (a
 *   write never takes the fast path: it keeps its intent, heartbeats and lost-write recovery).
 * @throws {InvalidToolNameError} `registry.invalid_name`.
 * @throws {InvalidToolVersionError} `registry.invalid_version`.
 * @throws {UnknownEffectError} `registry.unknown_effect` unless the effect is exactly `read` or `write`.
 * @throws {InvalidDescriptionError} `registry.invalid_description` when blank or over {@link MAX_DESCRIPTION_LENGTH}.
 * @throws {RegistryError} the schema errors of {@link checkToolSchema}.
 */
export function validateToolDefinition(definition: unknown): ToolDefinition {
  if (!isPlainObject(definition)) throw new InvalidDefinitionError('a definition must be a plain object');
  const extra = Object.keys(definition).filter((k) => !(DEFINITION_FIELDS as readonly string[]).includes(k));
  if (extra.length > 0) throw new InvalidDefinitionError(`unexpected fields: ${extra.sort().join(', ')}`);
  const { name, version, effect, description, parameters, idempotentByKey, fast } = definition;
  assertToolName(name);
  assertToolVersion(version);
  const tool = versionedName(name, version);
  if (effect !== 'read' && effect !== 'write') throw new UnknownEffectError(tool, effect);
  if (idempotentByKey !== undefined && typeof idempotentByKey !== 'boolean')
    throw new InvalidDefinitionError(`${tool}: idempotentByKey must be a boolean`);
  if (idempotentByKey === true && effect !== 'write')
    throw new InvalidDefinitionError(`${tool}: idempotentByKey is for write tools only`);
  const fastRead = checkFast(tool, effect, fast);
  if (typeof description !== 'string') throw new InvalidDescriptionError(tool, 'not a string');
  if (description.trim() === '') throw new InvalidDescriptionError(tool, 'empty');
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw new InvalidDescriptionError(tool, `longer than ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  checkToolSchema(tool, parameters);
  return deepFreeze({
    name,
    version,
    effect,
    description,
    parameters: structuredJsonCopy(parameters),
    ...(idempotentByKey === true ? { idempotentByKey: true } : {}),
    ...(fastRead === undefined ? {} : { fast: fastRead }),
  });
}

/** The checked copy of a definition's `fast`, or undefined without one. */
function checkFast(tool: string, effect: 'read' | 'write', fast: unknown): FastRead | undefined {
  if (fast === undefined) return undefined;
  if (effect !== 'read') {
    throw new InvalidDefinitionError(
      `${tool}: fast is for read tools only; a write keeps its intent, heartbeats and lost-write recovery`,
    );
  }
  if (!isPlainObject(fast) || Object.keys(fast).length !== 1 || !('timeoutMs' in fast))
    throw new InvalidDefinitionError(`${tool}: fast must be { timeoutMs }`);
  const { timeoutMs } = fast;
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isInteger(timeoutMs) ||
    timeoutMs < 1 ||
    timeoutMs > MAX_FAST_TIMEOUT_MS
  ) {
    throw new InvalidDefinitionError(
      `${tool}: fast.timeoutMs must be an integer from 1 to ${MAX_FAST_TIMEOUT_MS}`,
    );
  }
  return { timeoutMs };
}

/** Copy of JSON data (already checked to be JSON by the schema check). */
function structuredJsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
