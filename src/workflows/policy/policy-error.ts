import { HarnessError } from '../../contract/errors.js';

/**
 * A policy was configured wrongly (bad rules data, bad roots, empty composition) or asked with an
 * unusable request. Codes: `policy.config_invalid`, `policy.request_invalid`, `policy.decision_invalid`.
 */
export class PolicyError extends HarnessError {}
