import { HarnessError } from '../../contract/errors.js';

/**
 * A context package cannot be built. Codes: `context.invalid_input` (schema violation or duplicate
 * item ids), `context.budget_invalid` (reserves leave no room), `context.budget_exceeded` (the
 * mandatory items, system instructions and task state, do not fit). All are deterministic: the same
 * input fails the same way, so retrying does not help.
 */
export class ContextError extends HarnessError {}
