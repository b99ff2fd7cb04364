import type { DataClassification, GuardrailFinding } from './finding.js';
import type { InputGuardrailResult } from './input-guardrail.js';
import type { OutputGuardrailResult } from './output-guardrail.js';

/** Terminal reason codes a run ends with when a guardrail blocks (status `failed`). */
export const GuardrailStopCodes = {
  /** The run's task was blocked by the input guardrail before the profile ran. */
  inputBlocked: 'guardrail.input_blocked',
  /** The composed response was blocked by the output guardrail; nothing was returned. */
  outputBlocked: 'guardrail.output_blocked',
} as const;

/** Event types the runner emits for guardrail checks. */
export const GuardrailEventTypes = {
  inputChecked: 'guardrail.input_checked',
  outputChecked: 'guardrail.output_checked',
  /** A blocked output is composed again (profile `onBlockedOutput: retry`): attempt, reason codes, findings. */
  outputRetried: 'guardrail.output_retried',
} as const;

/** An event the runner can emit as is: `emit(e.type, e.data, e.classification)`. */
export interface GuardrailEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly classification: DataClassification;
}

const findingData = (findings: readonly GuardrailFinding[]): Record<string, unknown>[] =>
  findings.map((f) => ({
    code: f.code,
    ruleId: f.ruleId,
    path: f.path,
    ...(f.span ? { span: { ...f.span } } : {}),
    action: f.action,
  }));

/**
 * The `guardrail.input_checked` event of one input check. `source` names what was checked (`task`,
 * `provideInput:<slot>`, `signal:<name>`). The data holds codes, rule ids, paths and spans only,
 * never the checked text, so the event is `internal` whatever the input's classification.
 */
export function inputCheckedEvent(source: string, result: InputGuardrailResult): GuardrailEvent {
  return {
    type: GuardrailEventTypes.inputChecked,
    data: {
      source,
      verdict: result.verdict,
      reasonCodes: [...result.reasonCodes],
      dataClassification: result.dataClassification,
      findings: findingData(result.findings),
      omittedFindings: result.omittedFindings,
    },
    classification: 'internal',
  };
}

/** The `guardrail.output_checked` event of one output check (no output text in it; `internal`). */
export function outputCheckedEvent(result: OutputGuardrailResult): GuardrailEvent {
  return {
    type: GuardrailEventTypes.outputChecked,
    data: {
      verdict: result.verdict,
      reasonCodes: [...result.reasonCodes],
      findings: findingData(result.findings),
      omittedFindings: result.omittedFindings,
    },
    classification: 'internal',
  };
}

/** Most obligations a run state keeps (run state v2 `obligations`). */
export const MAX_OBLIGATIONS = 100;

/**
 * `current` followed by the obligations of `added` not in it yet (first-seen order, at most
 * {@link MAX_OBLIGATIONS}; later ones are dropped). Returns a new array. Never throws.
 */
export function mergeObligations(current: readonly string[], added: readonly string[]): string[] {
  const out = [...current];
  for (const o of added) if (!out.includes(o) && out.length < MAX_OBLIGATIONS) out.push(o);
  return out;
}
