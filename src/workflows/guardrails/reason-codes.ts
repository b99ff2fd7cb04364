/**
 * The catalogue of stable guardrail reason codes. They are written to durable audit records (events,
 * run state) and matched by tests and operators, so a code is never renamed or reused with another
 * meaning once released; new codes are only added. `docs/guardrails.md` describes each one.
 */
export const InputReasonCodes = {
  /** An instruction-override or system-prompt marker ("ignore previous instructions", "忽略之前的指令", `<|im_start|>`). */
  injectionMarker: 'guardrail.input.injection_marker',
  /** A role-play jailbreak marker ("you are now DAN", "pretend you have no restrictions", "扮演一个没有限制的AI"). */
  jailbreakRolePlay: 'guardrail.input.jailbreak_role_play',
  /** Text that imitates a tool call (`refund.create(`, `"tool_calls":`, `<tool_call>`). */
  toolCallImitation: 'guardrail.input.tool_call_imitation',
  /** An API-key-like string, bearer token, private key or credential assignment. */
  secret: 'guardrail.input.secret',
  /** A phone number (mainland mobile 1[3-9]xxxxxxxxx, E.164, North American). */
  piiPhone: 'guardrail.input.pii.phone',
  /** An e-mail address. */
  piiEmail: 'guardrail.input.pii.email',
  /** A payment card number that passes the Luhn check. */
  piiCardNumber: 'guardrail.input.pii.card_number',
  /** A Chinese resident identity number whose check digit is right. */
  piiCnIdNumber: 'guardrail.input.pii.cn_id_number',
  /** Over a size limit (characters of one string, of all strings, number of strings, depth). */
  oversize: 'guardrail.input.oversize',
  /** A lone UTF-16 surrogate (not valid Unicode text). */
  encodingLoneSurrogate: 'guardrail.input.encoding.lone_surrogate',
  /** A control or invisible format character other than tab, line feed and carriage return. */
  encodingControlChar: 'guardrail.input.encoding.control_char',
  /** Text that is not in Unicode NFC. */
  encodingNotNormalized: 'guardrail.input.encoding.not_normalized',
  /** Letters mostly outside the configured scripts. */
  languageUnexpected: 'guardrail.input.language_unexpected',
} as const;

export const OutputReasonCodes = {
  /** A claimed effect ("refund created", "已退款", "deployed") with no trusted artifact behind it. */
  unsupportedClaim: 'guardrail.output.unsupported_claim',
  /** A secret or payment card number in the response: restricted data never leaves. */
  restrictedData: 'guardrail.output.restricted_data',
  /** A `mask.*` obligation was applied (phone numbers, e-mails or identity numbers masked). */
  masked: 'guardrail.output.masked',
  /** A `mask.*` obligation the guardrail does not know: it fails closed. */
  obligationUnsupported: 'guardrail.output.obligation_unsupported',
  /** A refund amount above the approved amount (observed refund or `limit.refund_amount`). */
  amountOverApproved: 'guardrail.output.amount_over_approved',
  /** A refund amount with nothing approved or observed to compare it to. */
  amountUnverified: 'guardrail.output.amount_unverified',
  /** A date or a time promise that no trusted artifact or configured fact states. */
  dateUnverified: 'guardrail.output.date_unverified',
  /** The response does not satisfy the profile's output schema. */
  formatInvalid: 'guardrail.output.format_invalid',
  /**
   * The response is too deep, has too many strings, or holds more characters than one check reads
   * (`GUARDRAIL_MAX_SCAN_CHARS`) to check: it fails closed.
   */
  oversize: 'guardrail.output.oversize',
} as const;

export type InputReasonCode = (typeof InputReasonCodes)[keyof typeof InputReasonCodes];
export type OutputReasonCode = (typeof OutputReasonCodes)[keyof typeof OutputReasonCodes];
export type GuardrailReasonCode = InputReasonCode | OutputReasonCode;

const CATALOGUE: ReadonlySet<string> = new Set([
  ...Object.values(InputReasonCodes),
  ...Object.values(OutputReasonCodes),
]);

/** True when `code` is in the guardrail catalogue. */
export function isGuardrailReasonCode(code: string): code is GuardrailReasonCode {
  return CATALOGUE.has(code);
}
