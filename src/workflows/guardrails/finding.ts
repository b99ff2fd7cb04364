import type { DataClassification } from '../../contract/agent-event.js';
import type { GuardrailReasonCode } from './reason-codes.js';

export type { DataClassification };

/** UTF-16 offsets `[start, end)` into the string at a finding's path. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** What a guardrail does about one kind of finding. */
export type FindingAction = 'block' | 'flag' | 'ignore';

/**
 * One thing a guardrail found. Never carries the matched text: a secret, a phone number or an
 * injected instruction is located by `path` and `span`, and named by `ruleId`, but not echoed.
 */
export interface GuardrailFinding {
  readonly code: GuardrailReasonCode;
  /** Which detector rule matched, e.g. `secret.aws_access_key`, `injection.ignore_previous.zh`. */
  readonly ruleId: string;
  /** JSON pointer (RFC 6901) of the string inside the checked value; `''` is the value itself. */
  readonly path: string;
  /** Where in that string; absent when the finding is about the whole value (size, depth). */
  readonly span?: Span;
  /** What was done: `block` stops the value, `flag` records it, `rewrite` changed the output. */
  readonly action: 'block' | 'flag' | 'rewrite';
}

/** A detector's raw hit, before the configuration decides the action. */
export interface Detection {
  readonly code: GuardrailReasonCode;
  readonly ruleId: string;
  readonly span: Span;
}

const RANK: Record<DataClassification, number> = { public: 0, internal: 1, confidential: 2, restricted: 3 };

/** The stricter of two classifications. */
export function stricterClass(a: DataClassification, b: DataClassification): DataClassification {
  return RANK[a] >= RANK[b] ? a : b;
}
