/**
 * The tool registry: definitions, registration rules, the supported JSON Schema subset, argument
 * validation and its digest. Sandbox-safe throughout; the workflow entry re-exports `./sandbox.js`.
 */
export * from './sandbox.js';
export type { RegisteredTool, ToolRegistrySnapshot } from './tool-registry.js';
export { ToolRegistry } from './tool-registry.js';
