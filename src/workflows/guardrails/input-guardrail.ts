import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import { detectEncoding } from './detect-encoding.js';
import { detectInjection } from './detect-injection.js';
import { LanguageCheckSchema, detectLanguage } from './detect-language.js';
import { detectPersonalData } from './detect-personal-data.js';
import { detectSecrets } from './detect-secrets.js';
import type { DataClassification, Detection, FindingAction, GuardrailFinding } from './finding.js';
import { stricterClass } from './finding.js';
import { GuardrailConfigError } from './guardrail-error.js';
import { InputReasonCodes, type InputReasonCode } from './reason-codes.js';
import { GUARDRAIL_MAX_SCAN_CHARS } from './scan-limit.js';
import { collectTextLeaves } from './text-leaves.js';

const INPUT_CODES = Object.values(InputReasonCodes) as [InputReasonCode, ...InputReasonCode[]];

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

/** Configuration of {@link createInputGuardrail}. Built once per worker (see sharedAcrossRuns). */
export const InputGuardrailConfigSchema = z.lazy(
  sharedAcrossRuns('workflows/guardrails/input-guardrail#InputGuardrailConfigSchema', () =>
    z
      .object({
        /** Overrides of {@link DEFAULT_INPUT_ACTIONS}. `ignore` drops the finding (classification still counts). */
        actions: z.partialRecord(z.enum(INPUT_CODES), z.enum(['block', 'flag', 'ignore'])).default({}),
        /** Block when this many distinct injection/jailbreak/tool-call rules match in one value. */
        injectionBlockThreshold: z.number().int().positive().default(3),
        /**
         * Longest string examined, at most {@link GUARDRAIL_MAX_SCAN_CHARS}; longer strings are an
         * `oversize` finding and only their head is scanned.
         */
        maxStringChars: z.number().int().positive().max(GUARDRAIL_MAX_SCAN_CHARS).default(10_000),
        /**
         * Most characters over all strings, at most {@link GUARDRAIL_MAX_SCAN_CHARS} (the default); the
         * rest is an `oversize` finding and is not scanned.
         */
        maxTotalChars: z
          .number()
          .int()
          .positive()
          .max(GUARDRAIL_MAX_SCAN_CHARS)
          .default(GUARDRAIL_MAX_SCAN_CHARS),
        maxStrings: z.number().int().positive().default(1_000),
        maxDepth: z.number().int().positive().default(32),
        /** Optional language check; off when absent. */
        language: LanguageCheckSchema.optional(),
        /** Classification of a value without findings that raise it. */
        baseClassification: z.enum(['public', 'internal', 'confidential', 'restricted']).default('internal'),
        /** Most findings returned; the rest are counted in `omittedFindings`. */
        maxFindings: z.number().int().positive().max(1_000).default(50),
      })
      .strict(),
  ),
);
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
 * Pure and deterministic (workflow-sandbox safe). `check` never throws and runs in time linear in
 * the text it reads, at most `maxTotalChars` ({@link GUARDRAIL_MAX_SCAN_CHARS}) characters.
 * @throws GuardrailConfigError (`guardrail.config_invalid`) when `config` does not parse (a limit
 *   above {@link GUARDRAIL_MAX_SCAN_CHARS} included).
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
  // One pass over the detections, in order, keeping only the first maxFindings findings (a long
  // adversarial string can hold a detection every few characters). Whether injection findings
  // escalate to `block` is known only at the end: the kept ones are updated then.
  let classification: DataClassification = cfg.baseClassification;
  const injectionRules = new Set<string>();
  const findings: GuardrailFinding[] = [];
  const codes = new Set<InputReasonCode>();
  let count = 0;
  let blocked = false;
  let injectionFindings = 0;
  const record = (path: string, d: Detection | Omit<Detection, 'span'>): void => {
    const code = d.code as InputReasonCode;
    classification = stricterClass(classification, CLASSIFICATION[code] ?? 'public');
    const injection = INJECTION_FAMILY.has(code);
    if (injection) injectionRules.add(d.ruleId);
    const action = actionOf(code);
    if (action === 'ignore') return;
    count += 1;
    codes.add(code);
    blocked ||= action === 'block';
    if (injection) injectionFindings += 1;
    if (findings.length < cfg.maxFindings)
      findings.push({ code, ruleId: d.ruleId, path, ...('span' in d ? { span: d.span } : {}), action });
  };
  const oversize = (path: string, ruleId: string): void =>
    record(path, { code: InputReasonCodes.oversize, ruleId });

  const walk = collectTextLeaves(value, { maxDepth: cfg.maxDepth, maxStrings: cfg.maxStrings });
  if (walk.truncated !== undefined) oversize(walk.truncatedAt ?? '', `oversize.${walk.truncated}`);
  let budget = cfg.maxTotalChars;
  for (const leaf of walk.leaves) {
    if (budget <= 0) {
      oversize(leaf.path, 'oversize.total_chars');
      break;
    }
    let text = leaf.text;
    if (text.length > cfg.maxStringChars) {
      oversize(leaf.path, 'oversize.string_chars');
      text = text.slice(0, cfg.maxStringChars);
    }
    if (text.length > budget) {
      oversize(leaf.path, 'oversize.total_chars');
      text = text.slice(0, budget);
    }
    budget -= text.length;
    for (const d of detectEncoding(text)) record(leaf.path, d);
    for (const d of detectInjection(text)) record(leaf.path, d);
    for (const d of detectSecrets(text)) record(leaf.path, d);
    for (const d of detectPersonalData(text)) record(leaf.path, d);
    if (cfg.language) for (const d of detectLanguage(text, cfg.language)) record(leaf.path, d);
  }

  if (injectionRules.size >= cfg.injectionBlockThreshold) {
    blocked ||= injectionFindings > 0;
    for (const [i, f] of findings.entries())
      if (INJECTION_FAMILY.has(f.code)) findings[i] = { ...f, action: 'block' };
  }
  return {
    verdict: blocked ? 'block' : count > 0 ? 'flag' : 'pass',
    reasonCodes: [...codes],
    dataClassification: classification,
    findings,
    omittedFindings: count - findings.length,
  };
}
