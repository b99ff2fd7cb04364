/**
 * The workflow-sandbox-safe part of the registry: no Node builtins, no I/O, no clock or randomness.
 * Workflow code imports from here, never from `./index.js` (which pulls in `node:crypto`).
 */
export type {
  ArgumentError,
  ArgumentValidateFn,
  ArgumentValidationResult,
  ToolCallRejection,
} from './argument-validator.js';
export {
  ArgumentValidator,
  MAX_ARGUMENT_ERROR_MESSAGE,
  MAX_ARGUMENT_ERRORS,
  ToolCallValidator,
  unknownToolRejection,
} from './argument-validator.js';
export {
  CanonicalJsonError,
  canonicalJson,
  escapePointerToken,
  isPlainObject,
  utf8ByteLength,
} from '../contract/canonical-json.js';
export type { RegistryErrorCode } from './errors.js';
export {
  InvalidDefinitionError,
  InvalidDescriptionError,
  InvalidExecutorError,
  InvalidToolNameError,
  InvalidToolVersionError,
  REGISTRY_ERROR_CODES,
  RegistryError,
  SchemaInvalidError,
  SchemaNotClosedError,
  SchemaTooLargeError,
  SchemaUnsupportedError,
  ToolConflictError,
  ToolNotFoundError,
  UnknownEffectError,
} from './errors.js';
export type { SupportedFormat } from './formats.js';
export { FORMAT_CHECKERS, SUPPORTED_FORMATS, isSupportedFormat } from './formats.js';
export {
  MAX_PATTERN_LENGTH,
  SCHEMA_LIMITS,
  SUPPORTED_SCHEMA_KEYWORDS,
  SUPPORTED_SCHEMA_TYPES,
  checkToolSchema,
} from './schema-subset.js';
export { MAX_DESCRIPTION_LENGTH, validateToolDefinition } from './tool-definition.js';
export {
  MAX_TOOL_NAME_LENGTH,
  TOOL_NAME_PATTERN,
  TOOL_VERSION_PATTERN,
  assertToolName,
  assertToolVersion,
  toolKey,
} from './tool-identity.js';
export { definitionDigest } from './definition-digest.js';
