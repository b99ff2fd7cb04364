import type { ToolDefinition } from '../../../src/contract/index.js';
import { retailReadDefinitions } from './retail-read-definitions.js';
import { retailWriteDefinitions } from './retail-write-definitions.js';

/**
 * All sixteen retail tool definitions (nine reads, seven writes), sorted by name: what a profile lists
 * and the worker registers with the executors. Built on each call (no module-level work in the
 * sandbox). Pure data, sandbox-safe.
 */
export function retailToolDefinitions(): ToolDefinition[] {
  return [...retailReadDefinitions(), ...retailWriteDefinitions()].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
}
