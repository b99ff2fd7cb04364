import { Ajv, type ValidateFunction } from 'ajv';
import type { z } from 'zod';
import { GuardrailConfigError } from './guardrail-error.js';
import { pointerToken } from './text-leaves.js';

/** The profile's output schema: a JSON Schema (checked with ajv, strict mode) or a zod schema. */
export type OutputFormat =
  | { readonly kind: 'json_schema'; readonly schema: Readonly<Record<string, unknown>> }
  | { readonly kind: 'zod'; readonly schema: z.ZodType };

/** One place where the output breaks its schema. */
export interface FormatIssue {
  /** JSON pointer into the output. */
  readonly path: string;
  /** The failing keyword (`required`, `type`, ...) or zod issue code. */
  readonly keyword: string;
}

/** A compiled format check: the issues of `value` (empty when it holds), at most 20. */
export type FormatCheck = (value: unknown) => FormatIssue[];

const MAX_ISSUES = 20;

/**
 * Compile `format` once. ajv runs with `strict: true`, no coercion, no defaults, nothing removed; it
 * generates code with `new Function`, which the Temporal workflow sandbox permits.
 * @throws GuardrailConfigError (`guardrail.config_invalid`) when the JSON Schema does not compile.
 */
export function compileFormat(format: OutputFormat): FormatCheck {
  if (format.kind === 'zod') {
    const schema = format.schema;
    return (value) => {
      const r = schema.safeParse(value);
      if (r.success) return [];
      return r.error.issues.slice(0, MAX_ISSUES).map((i) => ({
        path: i.path.map((p) => `/${pointerToken(String(p))}`).join(''),
        keyword: i.code,
      }));
    };
  }
  let fn: ValidateFunction;
  try {
    fn = new Ajv({
      allErrors: true,
      strict: true,
      coerceTypes: false,
      useDefaults: false,
      removeAdditional: false,
      logger: false,
    }).compile(format.schema);
  } catch (err) {
    throw new GuardrailConfigError(`output schema does not compile: ${(err as Error).message}`);
  }
  return (value) =>
    fn(value)
      ? []
      : (fn.errors ?? []).slice(0, MAX_ISSUES).map((e) => ({ path: e.instancePath, keyword: e.keyword }));
}
