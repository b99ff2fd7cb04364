/**
 * The tool registry: definitions, registration rules, the supported JSON Schema subset, argument
 * validation and digests. Worker/client side (digests use `node:crypto`); workflow code imports
 * `./sandbox.js` instead.
 */
export * from '../../core/tools/sandbox.js';
export { DIGEST_PREFIX, sha256Digest } from './digest.js';
export type { RegisteredTool, ToolRegistrySnapshot } from './tool-registry.js';
export { ToolRegistry } from './tool-registry.js';
