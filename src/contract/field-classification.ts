import type { DataClassification } from './agent-event.js';

/**
 * A field-level classification rule: any object key matching `key` (case-insensitive, anywhere in an
 * event's data, at any depth) carries `classification`, whatever the event's own classification.
 */
export interface FieldRule {
  readonly key: RegExp;
  readonly classification: DataClassification;
}

/**
 * The default field rules: secrets and payment credentials are `restricted` (never leave the evidence
 * store); personal contact and identity data is `confidential` (shown to outside readers only as a
 * redaction marker). Phone numbers are not listed: they are personal data the refund policy handles
 * with the `mask.phone` obligation (see public-projection.ts).
 */
export const DEFAULT_FIELD_RULES: readonly FieldRule[] = [
  {
    key: /^(password|passwd|secret|client_?secret|token|access_?token|refresh_?token|api_?key|authorization|credentials?|private_?key)$/i,
    classification: 'restricted',
  },
  { key: /^(card_?number|pan|cvv|cvc|bank_?account|iban)$/i, classification: 'restricted' },
  {
    key: /^(email|e_?mail|address|shipping_?address|billing_?address|id_?number|national_?id|passport|birth_?date|date_?of_?birth)$/i,
    classification: 'confidential',
  },
];

const RANK: Record<DataClassification, number> = { public: 0, internal: 1, confidential: 2, restricted: 3 };

/** The stricter of two classifications. */
export function stricter(a: DataClassification, b: DataClassification): DataClassification {
  return RANK[a] >= RANK[b] ? a : b;
}

/** The classification a key carries under `rules`, or undefined when no rule names it. */
export function classifyKey(key: string, rules: readonly FieldRule[]): DataClassification | undefined {
  let found: DataClassification | undefined;
  for (const r of rules)
    if (r.key.test(key)) found = found === undefined ? r.classification : stricter(found, r.classification);
  return found;
}

/**
 * The strictest classification the field rules give any key of `value`, at any depth (the keys the
 * public projection removes or redacts), or undefined when no key is named by a rule. Pure; never
 * throws (non-object values have no keys).
 */
export function classifyFields(value: unknown, rules: readonly FieldRule[]): DataClassification | undefined {
  let found: DataClassification | undefined;
  const walk = (v: unknown): void => {
    if (found === 'restricted') return;
    if (Array.isArray(v)) {
      for (const item of v) walk(item);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      const c = classifyKey(k, rules);
      if (c !== undefined) found = found === undefined ? c : stricter(found, c);
      walk(child);
    }
  };
  walk(value);
  return found;
}
