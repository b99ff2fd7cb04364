import type { FindingAction, GuardrailFinding, Span } from './finding.js';
import type { OutputReasonCode } from './reason-codes.js';

/** Note one finding of the output guardrail (`ignore` notes nothing). */
export type NoteFinding = (
  code: OutputReasonCode,
  ruleId: string,
  path: string,
  action: FindingAction | 'rewrite',
  span?: Span,
) => void;

/** The findings of one output check, from {@link outputFindings}. */
export interface OutputFindings {
  readonly note: NoteFinding;
  /** The first `maxFindings` findings, in order. */
  readonly findings: GuardrailFinding[];
  /** Every reason code noted, in first-noted order. */
  readonly codes: ReadonlySet<OutputReasonCode>;
  /** Whether a `block` finding was noted. */
  readonly blocked: boolean;
  /** How many findings were noted beyond the first `maxFindings`. */
  readonly omitted: number;
}

/**
 * The findings of one output check, in order; only the first `maxFindings` are kept (a long response
 * can hold a finding every few characters), the rest counted. Never throws.
 */
export function outputFindings(maxFindings: number): OutputFindings {
  // findings in order; only the first maxFindings are kept (a long response can hold a finding
  // every few characters), the rest counted
  const findings: GuardrailFinding[] = [];
  const codes = new Set<OutputReasonCode>();
  let count = 0;
  let blocked = false;
  const note: NoteFinding = (code, ruleId, path, action, span) => {
    if (action === 'ignore') return;
    count += 1;
    codes.add(code);
    blocked ||= action === 'block';
    if (findings.length < maxFindings)
      findings.push({ code, ruleId, path, ...(span ? { span } : {}), action });
  };
  return {
    note,
    findings,
    codes,
    get blocked() {
      return blocked;
    },
    get omitted() {
      return count - findings.length;
    },
  };
}
