import { Ajv } from 'ajv';
import { ModelError } from './errors.js';

const ajv = new Ajv({ allErrors: false, strict: false });

/**
 * Parses `text` as JSON and checks it against `schema`. Throws `model.output_invalid`
 * (non-retryable) naming the first violation when the text is not JSON or does not match.
 */
export function validateStructuredOutput(text: string, schema: Record<string, unknown>): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ModelError(
      'model.output_invalid',
      'the model output is not JSON although an output schema was requested',
      {
        details: { preview: text.slice(0, 200) },
      },
    );
  }
  const validate = ajv.compile(schema);
  if (!validate(value)) {
    const first = validate.errors?.[0];
    const where = first ? `${first.instancePath || '/'} ${first.message ?? ''}`.trim() : 'unknown violation';
    throw new ModelError(
      'model.output_invalid',
      `the model output does not match the output schema: ${where}`,
      {
        details: { violation: where },
      },
    );
  }
  return value;
}
