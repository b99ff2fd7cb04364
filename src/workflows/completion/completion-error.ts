import { HarnessError } from '../../contract/errors.js';

/**
 * A completion contract or its params are unusable. Codes: `completion.params_invalid`,
 * `completion.contract_invalid`. Raised at composition time (profile registration), not during runs.
 */
export class CompletionError extends HarnessError {}
