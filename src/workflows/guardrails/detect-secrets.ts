import type { Detection, Span } from './finding.js';
import { jwtSpans } from './jwt-spans.js';
import { InputReasonCodes } from './reason-codes.js';
import { TakenSpans } from './taken-spans.js';

/** A rule: a global pattern, or a scanner written in code where a pattern would not be linear. */
type SecretRule =
  | { readonly ruleId: string; readonly pattern: RegExp }
  | { readonly ruleId: string; readonly spans: (text: string) => Iterable<Span> };

/**
 * Secret patterns, matched on the original text (case matters for most key formats). Each starts at
 * a literal prefix; the open-ended run after it is either consumed by the match or too short to
 * match (a bounded read), and white space after a keyword is read from that keyword alone, so a
 * global search is linear. JWTs need a guard: a first segment may hold the next `eyJ`
 * (`eyJ-eyJ-eyJ…`), and every later start would read the same run to its end again; a lookbehind
 * that skipped those starts rescanned the run backwards from each of them (O(n²) on `eyJeyJeyJ…`),
 * so the guard is kept in code ({@link jwtSpans}), with the same matches.
 */
const SECRET_RULES: readonly SecretRule[] = [
  { ruleId: 'secret.private_key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  { ruleId: 'secret.openai_style_key', pattern: /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}/g },
  { ruleId: 'secret.stripe_key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { ruleId: 'secret.aws_access_key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  {
    ruleId: 'secret.github_token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g,
  },
  { ruleId: 'secret.slack_token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { ruleId: 'secret.google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { ruleId: 'secret.jwt', spans: jwtSpans },
  { ruleId: 'secret.bearer_token', pattern: /\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*/gi },
  {
    ruleId: 'secret.credential_assignment',
    pattern:
      /\b(?:password|passwd|pwd|secret|client_secret|api[_-]?key|access[_-]?token|auth[_-]?token)\s*[:=]\s*["']?[^\s"']{8,}/gi,
  },
];

/**
 * Find API-key-like strings, bearer tokens, JWTs, private keys and credential assignments in `text`.
 * Overlapping hits of later rules are dropped, so one secret gives one detection. Linear in the
 * length of `text`; never throws.
 */
export function* detectSecrets(text: string): Generator<Detection> {
  const taken = new TakenSpans(text.length);
  for (const rule of SECRET_RULES) {
    for (const span of 'spans' in rule ? rule.spans(text) : matchSpans(text, rule.pattern)) {
      if (taken.overlaps(span)) continue;
      taken.take(span);
      yield { code: InputReasonCodes.secret, ruleId: rule.ruleId, span };
    }
  }
}

/** The spans of the matches of global `pattern` in `text`, in order. */
function* matchSpans(text: string, pattern: RegExp): Generator<Span> {
  for (const m of text.matchAll(pattern)) yield { start: m.index, end: m.index + m[0].length };
}
