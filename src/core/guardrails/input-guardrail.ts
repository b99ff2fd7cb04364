import { z } from 'zod';
import { detectEncoding } from './detect-encoding.js';
import { detectInjection } from './detect-injection.js';
import { LanguageCheckSchema, detectLanguage } from './detect-language.js';
import { detectPersonalData } from './detect-personal-data.js';
import { detectSecrets } from './detect-secrets.js';
import type { DataClassification, Detection, FindingAction, GuardrailFinding } from './finding.js';
import { reasonCodesOf, stricterClass } from './finding.js';
import { GuardrailConfigError } from './guardrail-error.js';
import { InputReasonCodes, type InputReasonCode } from './reason-codes.js';
import { collectTextLeaves } from './text-leaves.js';

const INPUT_CODES = Object.values(InputReasonCodes) as [InputReasonCode, ...InputReasonCode[]];
const ActionSchema = z.enum(['block', 'flag', 'ignore']);

/** Default action per input reason code; {@link InputGuardrailConfig.actions} overrides any of them. */
export const DEFAULT_INPUT_ACTIONS: Readonly<Record<InputReasonCode, FindingAction>> = {
  [InputReasonCodes.injectionMarker]: 'flag',
  [InputReasonCodes.jailbreakRolePlay]: 'flag',
  [InputReasonCodes.toolCallImitation]: 'flag',
  [InputReasonCodes.secret]: 'block',
  [InputReasonCodes.piiPhone]: 'flag',
  [InputReasonCodes.piiEmail]: 'flag',
  [InputReasonCodes.piiCardNumber]: 'flag',
  [InputReasonCodes.piiCnIdNumber]: 'flag',
  [InputReasonCodes.oversize]: 'block',
  [InputReasonCodes.encodingLoneSurrogate]: 'block',
  [InputReasonCodes.encodingControlChar]: 'flag',
  [InputReasonCodes.encodingNotNormalized]: 'flag',
  [InputReasonCodes.languageUnexpected]: 'flag',
};

/** The classification each finding code implies for the checked value. */
const CLASSIFICATION: Partial<Record<InputReasonCode, DataClassification>> = {
  [InputReasonCodes.secret]: 'restricted',
  [InputReasonCodes.piiCardNumber]: 'restricted',
  [InputReasonCodes.piiCnIdNumber]: 'confidential',
  [InputReasonCodes.piiPhone]: 'confidential',
  [InputReasonCodes.piiEmail]: 'confidential',
};

const INJECTION_FAMILY: ReadonlySet<string> = new Set([
  InputReasonCodes.injectionMarker,
  InputReasonCodes.jailbreakRolePlay,
  InputReasonCodes.toolCallImitation,
]);

export const InputGuardrailConfigSchema = z
  .object({
    /** Overrides of {@link DEFAULT_INPUT_ACTIONS}. `ignore` drops the finding (classification still counts). */
    actions: z.partialRecord(z.enum(INPUT_CODES), ActionSchema).default({}),
    /** Block when this many distinct injection/jailbreak/tool-call rules match in one value. */
    injectionBlockThreshold: z.number().int().positive().default(3),
    /** Longest string examined; longer strings are an `oversize` finding and only their head is scanned. */
    maxStringChars: z.number().int().positive().default(10_000),
    /** Most characters over all strings; the rest is an `oversize` finding and is not scanned. */
    maxTotalChars: z
      .number()
      .int()
      .positive()
      .default(64 * 1024),
    maxStrings: z.number().int().positive().default(1_000),
    maxDepth: z.number().int().positive().default(32),
    /** Optional language check; off when absent. */
    language: LanguageCheckSchema.optional(),
    /** Classification of a value without findings that raise it. */
    baseClassification: z.enum(['public', 'internal', 'confidential', 'restricted']).default('internal'),
    /** Most findings returned; the rest are counted in `omittedFindings`. */
    maxFindings: z.number().int().positive().max(1_000).default(50),
  })
  .strict();
export type InputGuardrailConfig = z.input<typeof InputGuardrailConfigSchema>;
type ParsedConfig = z.output<typeof InputGuardrailConfigSchema>;

export interface InputGuardrailResult {
  /** `block`: do not use the value; `flag`: use it, record the findings; `pass`: nothing found. */
  readonly verdict: 'pass' | 'flag' | 'block';
  /** Distinct codes of the returned findings, first-seen order. */
  readonly reasonCodes: InputReasonCode[];
  readonly dataClassification: DataClassification;
  /** At most `maxFindings`; never contains the matched text. */
  readonly findings: GuardrailFinding[];
  readonly omittedFindings: number;
}

/** What the input guardrail checks: any JSON-like value (a task object, a signal payload, a string). */
export interface InputGuardrail {
  check(value: unknown): InputGuardrailResult;
}

/**
 * Create an input guardrail. It classifies and records: it detects injection markers, secrets,
 * personal data, oversize and encoding problems (and optionally the wrong script) in every string
 * of a value, and returns a verdict from the configured actions. It never authorizes anything: a
 * `pass` is not permission; policy still decides every action.
 *
 * Pure and deterministic (workflow-sandbox safe). `check` never throws.
 * @throws GuardrailConfigError (`guardrail.config_invalid`) when `config` does not parse.
 */
export function createInputGuardrail(config: InputGuardrailConfig = {}): InputGuardrail {
  const parsed = InputGuardrailConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new GuardrailConfigError(
      `invalid input guardrail config: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      {
        path: parsed.error.issues[0]?.path.join('.') ?? '',
      },
    );
  }
  const cfg = parsed.data;
  return { check: (value) => checkWith(cfg, value) };
}

/** One-shot form of {@link createInputGuardrail}`(config).check(value)`. */
export function checkInput(value: unknown, config: InputGuardrailConfig = {}): InputGuardrailResult {
  return createInputGuardrail(config).check(value);
}

function checkWith(cfg: ParsedConfig, value: unknown): InputGuardrailResult {
  const actionOf = (code: InputReasonCode): FindingAction => cfg.actions[code] ?? DEFAULT_INPUT_ACTIONS[code];
  const raw: { path: string; d: Detection | Omit<Detection, 'span'> }[] = [];
  const walk = collectTextLeaves(value, { maxDepth: cfg.maxDepth, maxStrings: cfg.maxStrings });
  if (walk.truncated !== undefined) {
    raw.push({
      path: walk.truncatedAt ?? '',
      d: { code: InputReasonCodes.oversize, ruleId: `oversize.${walk.truncated}` },
    });
  }
  let budget = cfg.maxTotalChars;
  for (const leaf of walk.leaves) {
    if (budget <= 0) {
      raw.push({ path: leaf.path, d: { code: InputReasonCodes.oversize, ruleId: 'oversize.total_chars' } });
      break;
    }
    let text = leaf.text;
    if (text.length > cfg.maxStringChars) {
      raw.push({ path: leaf.path, d: { code: InputReasonCodes.oversize, ruleId: 'oversize.string_chars' } });
      text = text.slice(0, cfg.maxStringChars);
    }
    if (text.length > budget) {
      raw.push({ path: leaf.path, d: { code: InputReasonCodes.oversize, ruleId: 'oversize.total_chars' } });
      text = text.slice(0, budget);
    }
    budget -= text.length;
    const detections = [
      ...detectEncoding(text),
      ...detectInjection(text),
      ...detectSecrets(text),
      ...detectPersonalData(text),
      ...(cfg.language ? detectLanguage(text, cfg.language) : []),
    ];
    for (const d of detections) raw.push({ path: leaf.path, d });
  }

  let classification: DataClassification = cfg.baseClassification;
  for (const { d } of raw)
    classification = stricterClass(classification, CLASSIFICATION[d.code as InputReasonCode] ?? 'public');

  const injectionRules = new Set(
    raw.filter(({ d }) => INJECTION_FAMILY.has(d.code)).map(({ d }) => d.ruleId),
  );
  const escalate = injectionRules.size >= cfg.injectionBlockThreshold;
  const all: GuardrailFinding[] = [];
  for (const { path, d } of raw) {
    const code = d.code as InputReasonCode;
    let action = actionOf(code);
    if (action === 'ignore') continue;
    if (escalate && INJECTION_FAMILY.has(code)) action = 'block';
    all.push({ code, ruleId: d.ruleId, path, ...('span' in d ? { span: d.span } : {}), action });
  }
  const verdict = all.some((f) => f.action === 'block') ? 'block' : all.length > 0 ? 'flag' : 'pass';
  const findings = all.slice(0, cfg.maxFindings);
  return {
    verdict,
    reasonCodes: reasonCodesOf(all) as InputReasonCode[],
    dataClassification: classification,
    findings,
    omittedFindings: all.length - findings.length,
  };
}
