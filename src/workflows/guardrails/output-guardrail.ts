import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import type { Artifact } from '../../contract/artifact.js';
import { DEFAULT_CLAIM_KINDS, type ClaimKind } from './claims.js';
import { observedRefundCents, vouchedDates } from './commitments.js';
import type { GuardrailFinding } from './finding.js';
import { GuardrailConfigError } from './guardrail-error.js';
import { readObligations } from './obligations.js';
import { compileFormat, type FormatCheck, type OutputFormat } from './output-format.js';
import { outputFindings } from './output-findings.js';
import { applyEdits, checkText, type Edit, type TextChecks } from './output-text-checks.js';
import { OutputReasonCodes, type OutputReasonCode } from './reason-codes.js';
import { backingOf, trustedEvidence, type Backing, type EvidenceInvocation } from './run-evidence.js';
import { GUARDRAIL_MAX_SCAN_CHARS } from './scan-limit.js';
import { trustedIdentifiers } from './trusted-identifiers.js';
import { collectTextLeaves, mapTextLeaves, pointerToken, type TextLeaf } from './text-leaves.js';

/** Configuration of {@link createOutputGuardrail}. Built once per worker (see sharedAcrossRuns). */
const OutputGuardrailConfigSchema = z.lazy(
  sharedAcrossRuns('workflows/guardrails/output-guardrail#OutputGuardrailConfigSchema', () => {
    const Action = z.enum(['block', 'flag', 'ignore']);
    return z
      .object({
        /** Unsupported claims: `block` the response, or `rewrite` each claiming sentence to what is verified. */
        mode: z.enum(['block', 'rewrite']).default('block'),
        claims: z
          .array(z.custom<ClaimKind>((v) => typeof v === 'object' && v !== null && 'patterns' in v))
          .optional(),
        /** Per claim kind id: override of its requirement. */
        claimRequirements: z.record(z.string(), z.enum(['observed', 'verified'])).default({}),
        /** Artifact types of observed refunds, whose amount bounds the amounts a response may state. */
        refundArtifactTypes: z.array(z.string().min(1)).default(['refund']),
        /** Numeric field (cents) of a refund artifact's data. */
        refundAmountField: z.string().min(1).default('amountCents'),
        /** ISO dates (`YYYY-MM-DD`) the composition vouches for, besides trusted artifact data. */
        verifiedDates: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}/)).default([]),
        /** Time promises the composition allows ("within 3 business days"), besides trusted artifact data. */
        allowedPromises: z.array(z.string().min(1)).default([]),
        actions: z
          .object({ amountUnverified: Action.default('flag'), dateUnverified: Action.default('block') })
          .strict()
          .default({ amountUnverified: 'flag', dateUnverified: 'block' }),
        format: z.custom<OutputFormat>((v) => typeof v === 'object' && v !== null && 'kind' in v).optional(),
        maxDepth: z.number().int().positive().default(32),
        maxStrings: z.number().int().positive().default(2_000),
        maxFindings: z.number().int().positive().max(1_000).default(50),
      })
      .strict();
  }),
);
export type OutputGuardrailConfig = z.input<typeof OutputGuardrailConfigSchema>;

/** What the output guardrail checks: the composed response and the run's recorded evidence. */
export interface OutputCheckInput {
  /** The response (any JSON-like value: a string, or an object such as `{ outcome, message }`). */
  readonly output: unknown;
  /** The run's artifacts (RunState.artifacts). */
  readonly artifacts: readonly Artifact[];
  /** The run's invocations (RunState.invocations); they vouch for observed/verified artifacts. */
  readonly invocations: readonly EvidenceInvocation[];
  /** Policy obligations in force for the run (`mask.phone`, `limit.refund_amount=5000`...). */
  readonly obligations?: readonly string[];
  /**
   * Whether ids of observed business objects may be exempted from the personal-data checks; asked
   * only when an exemption would change the verdict (a workflow answers it with a `patched()` so runs
   * from before the exemption replay unchanged). Absent: yes.
   */
  readonly exemptTrustedIdentifiers?: () => boolean;
  /**
   * Whether a response whose strings hold more than {@link GUARDRAIL_MAX_SCAN_CHARS} characters is
   * blocked (`guardrail.output.oversize`, rule `oversize.total_chars`; only the strings within the
   * limit are scanned); asked only when it holds more (a workflow answers it with a `patched()` so
   * runs from before the limit replay unchanged: they scan all of it, in linear time). Absent: yes.
   */
  readonly limitText?: () => boolean;
}

export interface OutputGuardrailResult {
  /** `pass`: unchanged; `rewritten`: use `output` instead of the original; `block`: nothing may leave. */
  readonly verdict: 'pass' | 'rewritten' | 'block';
  /** The response to send: the original, the rewritten one, or `null` on `block`. */
  readonly output: unknown;
  readonly reasonCodes: OutputReasonCode[];
  /** At most `maxFindings`; spans refer to the original strings; never contains the matched text. */
  readonly findings: GuardrailFinding[];
  readonly omittedFindings: number;
}

export interface OutputGuardrail {
  check(input: OutputCheckInput): OutputGuardrailResult;
}

/** Object keys whose values are restricted wherever they appear (secrets, payment credentials). */
const RESTRICTED_KEY =
  /^(password|passwd|secret|client_?secret|token|access_?token|refresh_?token|api_?key|authorization|credentials?|private_?key|card_?number|pan|cvv|cvc)$/i;

/**
 * Create an output guardrail: it checks a response before it leaves the run for
 * - faithfulness: a claimed effect needs trusted artifacts (observed, or observed and verified);
 * - privacy: `mask.*` obligations are applied; secrets and card numbers never leave;
 * - commitments: refund amounts within the observed refund or `limit.refund_amount`; dates and
 *   time promises stated by trusted data;
 * - format: the profile's output schema holds (checked on the response that would leave).
 * Pure and deterministic (workflow-sandbox safe). `check` never throws and runs in time linear in
 * the response (each check reads at most {@link GUARDRAIL_MAX_SCAN_CHARS} characters); an unknown
 * `mask.*` obligation or an over-large response (too deep, too many strings, too much text) blocks
 * (fails closed).
 * @throws GuardrailConfigError (`guardrail.config_invalid`) when `config` does not parse or the
 *   output schema does not compile.
 */
export function createOutputGuardrail(config: OutputGuardrailConfig = {}): OutputGuardrail {
  const parsed = OutputGuardrailConfigSchema.safeParse(config);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new GuardrailConfigError(`invalid output guardrail config: ${first?.message ?? 'invalid'}`, {
      path: first?.path.join('.') ?? '',
    });
  }
  const cfg = parsed.data;
  const kinds = (cfg.claims ?? DEFAULT_CLAIM_KINDS).map((k) => {
    const requirement = cfg.claimRequirements[k.id];
    return requirement ? { ...k, requirement } : k;
  });
  const format = cfg.format ? compileFormat(cfg.format) : undefined;
  return { check: (input) => check(cfg, kinds, format, input) };
}

/** One-shot form of {@link createOutputGuardrail}`(config).check(input)`. */
export function checkOutput(
  input: OutputCheckInput,
  config: OutputGuardrailConfig = {},
): OutputGuardrailResult {
  return createOutputGuardrail(config).check(input);
}

type Cfg = z.output<typeof OutputGuardrailConfigSchema>;

function check(
  cfg: Cfg,
  kinds: readonly ClaimKind[],
  format: FormatCheck | undefined,
  input: OutputCheckInput,
): OutputGuardrailResult {
  const found = outputFindings(cfg.maxFindings);
  const { note } = found;
  const obligations = readObligations(input.obligations ?? []);
  for (const o of obligations.unsupportedMasks)
    note(OutputReasonCodes.obligationUnsupported, `obligation.${o}`, '', 'block');
  for (const o of obligations.invalidLimits)
    note(OutputReasonCodes.obligationUnsupported, `obligation.${o.split('=')[0] ?? o}`, '', 'block');

  const walk = collectTextLeaves(input.output, { maxDepth: cfg.maxDepth, maxStrings: cfg.maxStrings });
  if (walk.truncated !== undefined)
    note(OutputReasonCodes.oversize, `oversize.${walk.truncated}`, walk.truncatedAt ?? '', 'block');
  const leaves = withinScanLimit(walk.leaves, input.limitText);
  if (leaves.length < walk.leaves.length)
    note(OutputReasonCodes.oversize, 'oversize.total_chars', walk.leaves[leaves.length]?.path ?? '', 'block');
  for (const path of restrictedKeyPaths(input.output, cfg.maxDepth))
    note(OutputReasonCodes.restrictedData, 'restricted.field', path, 'block');

  const evidence = trustedEvidence(input.artifacts, input.invocations);
  const backing = new Map<string, Backing>(
    kinds.map((k) => [k.id, backingOf(evidence, k.artifactTypes, k.actionTools)]),
  );
  const ceiling =
    observedRefundCents(evidence, cfg.refundArtifactTypes, cfg.refundAmountField) ??
    obligations.refundLimitCents;
  const vouched = vouchedDates(evidence, cfg.verifiedDates, cfg.allowedPromises);
  const identifiers = trustedIdentifiers(evidence);
  let exempting: boolean | undefined;
  const exemptIds = (): boolean => (exempting ??= input.exemptTrustedIdentifiers?.() ?? true);
  const texts: TextChecks = {
    mode: cfg.mode,
    actions: cfg.actions,
    kinds,
    backing,
    ceiling,
    vouched,
    identifiers,
    masks: obligations.masks,
    exemptIds,
  };
  const editsByPath = new Map<string, Edit[]>();
  for (const leaf of leaves) {
    const edits = checkText(leaf, texts, note);
    if (edits.length > 0) editsByPath.set(leaf.path, edits);
  }

  let output = input.output;
  if (!found.blocked && editsByPath.size > 0) {
    output = mapTextLeaves(input.output, (path, text) => applyEdits(text, editsByPath.get(path) ?? []));
  }
  if (!found.blocked && format) {
    for (const issue of format(output))
      note(OutputReasonCodes.formatInvalid, `format.${issue.keyword}`, issue.path, 'block');
  }
  const verdict = found.blocked ? 'block' : editsByPath.size > 0 ? 'rewritten' : 'pass';
  return {
    verdict,
    output: verdict === 'block' ? null : output,
    reasonCodes: [...found.codes],
    findings: found.findings,
    omittedFindings: found.omitted,
  };
}

/**
 * The strings a check reads: all of them when they hold at most {@link GUARDRAIL_MAX_SCAN_CHARS}
 * characters or `limitText` says no (runs from before the limit); otherwise those that fit in the
 * limit, in order (the caller blocks the response).
 */
function withinScanLimit(
  leaves: readonly TextLeaf[],
  limitText: (() => boolean) | undefined,
): readonly TextLeaf[] {
  let budget = GUARDRAIL_MAX_SCAN_CHARS;
  let fit = 0;
  while (fit < leaves.length && (leaves[fit]?.text.length ?? 0) <= budget) {
    budget -= leaves[fit]?.text.length ?? 0;
    fit += 1;
  }
  if (fit === leaves.length || !(limitText?.() ?? true)) return leaves;
  return leaves.slice(0, fit);
}

function restrictedKeyPaths(value: unknown, maxDepth: number): string[] {
  const out: string[] = [];
  const visit = (v: unknown, path: string, depth: number): void => {
    if (v === null || typeof v !== 'object' || depth >= maxDepth) return;
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [String(i), x])
      : Object.entries(v);
    for (const [k, item] of entries) {
      const p = `${path}/${pointerToken(k)}`;
      if (!Array.isArray(v) && RESTRICTED_KEY.test(k) && item !== null && item !== undefined && item !== '')
        out.push(p);
      else visit(item, p, depth + 1);
    }
  };
  visit(value, '', 0);
  return out;
}
