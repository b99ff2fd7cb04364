import { detectSecrets } from '../../workflows/index.js';

/** What replaces a secret found inside a text. */
export const SECRET_REDACTED = '[redacted:secret]';

function scrubText(text: string): string {
  const spans = [...detectSecrets(text)].map((d) => d.span).sort((a, b) => a.start - b.start);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + SECRET_REDACTED;
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * A copy of a JSON value whose strings have every secret the input guardrail detects (API keys,
 * bearer tokens, JWTs, private keys, credential assignments) replaced by {@link SECRET_REDACTED}, at
 * any depth. For the free text a secret-named key does not reveal (a customer who pasted a key into
 * a message). Pure; linear in the size of the value.
 */
export function scrubSecrets(value: unknown): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (Array.isArray(value)) return value.map(scrubSecrets);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubSecrets(v)]));
  return value;
}
