import { HarnessError } from '../../contract/errors.js';

/** A guardrail configuration that does not parse. Raised when a guardrail is created, never while checking. */
export class GuardrailConfigError extends HarnessError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('guardrail.config_invalid', message, details);
  }
}
