/**
 * Input and output guardrails (seed 004 guardrail layers). Workflow-sandbox safe: zod, ajv,
 * src/contract and runner types only; no Node builtins, no I/O, no clock, no randomness.
 * See docs/guardrails.md.
 */
export { DEFAULT_CLAIM_KINDS, type ClaimKind, type ClaimRewrite } from './claims.js';
export { ScriptSchema, type LanguageCheck, type Script } from './detect-language.js';
export { cnIdChecksumValid, luhnValid } from './detect-personal-data.js';
export type { DataClassification, FindingAction, GuardrailFinding, Span } from './finding.js';
export { GuardrailConfigError } from './guardrail-error.js';
export {
  DEFAULT_INPUT_ACTIONS,
  InputGuardrailConfigSchema,
  checkInput,
  createInputGuardrail,
  type InputGuardrail,
  type InputGuardrailConfig,
  type InputGuardrailResult,
} from './input-guardrail.js';
export { maskEmail, maskIdNumber, maskPhone } from './masking.js';
export { SUPPORTED_MASKS, readObligations, type MaskKind, type OutputObligations } from './obligations.js';
export type { OutputFormat } from './output-format.js';
export {
  checkOutput,
  createOutputGuardrail,
  type OutputCheckInput,
  type OutputGuardrail,
  type OutputGuardrailConfig,
  type OutputGuardrailResult,
} from './output-guardrail.js';
export {
  InputReasonCodes,
  OutputReasonCodes,
  isGuardrailReasonCode,
  type GuardrailReasonCode,
  type InputReasonCode,
  type OutputReasonCode,
} from './reason-codes.js';
export type { EvidenceInvocation } from './run-evidence.js';
export { GUARDRAIL_MAX_SCAN_CHARS } from './scan-limit.js';
export {
  GuardrailFindingRecordSchema,
  MAX_FINDING_RECORDS,
  appendFindingRecords,
  type GuardrailFindingRecord,
} from './finding-record.js';
export {
  GuardrailEventTypes,
  GuardrailStopCodes,
  MAX_OBLIGATIONS,
  inputCheckedEvent,
  mergeObligations,
  outputCheckedEvent,
  type GuardrailEvent,
} from './run-hooks.js';
