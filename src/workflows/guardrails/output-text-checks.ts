import { findClaims, rewriteFor, unsupported, type ClaimKind } from './claims.js';
import { findDates, findRefundAmounts, isVouched, type VouchedDates } from './commitments.js';
import { detectPersonalData } from './detect-personal-data.js';
import { detectSecrets } from './detect-secrets.js';
import type { FindingAction, Span } from './finding.js';
import { maskEdits } from './masking.js';
import type { MaskKind } from './obligations.js';
import type { NoteFinding } from './output-findings.js';
import { InputReasonCodes, OutputReasonCodes } from './reason-codes.js';
import type { Backing } from './run-evidence.js';
import { sentencesOf } from './sentences.js';
import { TakenSpans } from './taken-spans.js';
import type { TextLeaf } from './text-leaves.js';
import { identifierCover } from './trusted-identifiers.js';

/** One replacement in a string of the response. */
export interface Edit {
  readonly span: Span;
  readonly replacement: string;
}

/** What {@link checkText} checks each string of one response against. */
export interface TextChecks {
  /** Unsupported claims: `block` the response, or `rewrite` each claiming sentence to what is verified. */
  readonly mode: 'block' | 'rewrite';
  readonly actions: { readonly amountUnverified: FindingAction; readonly dateUnverified: FindingAction };
  readonly kinds: readonly ClaimKind[];
  /** Per claim kind id: what the run's trusted evidence backs. */
  readonly backing: ReadonlyMap<string, Backing>;
  /** The refund amount (cents) a response may state at most; undefined: none is verified. */
  readonly ceiling: number | undefined;
  readonly vouched: VouchedDates;
  /** Ids of observed business objects. */
  readonly identifiers: ReadonlySet<string>;
  readonly masks: ReadonlySet<MaskKind>;
  /** Whether those ids are exempt from the personal-data checks; asked only when it would matter. */
  readonly exemptIds: () => boolean;
}

/**
 * Check one string of a response: secrets and card numbers (restricted data), unsupported claims
 * (blocked, or their sentences rewritten), refund amounts and dates not vouched for (outside rewritten
 * sentences), and the masks in force. Notes each finding and returns the string's edits (the
 * rewritten sentences, then the masks). Never throws; asks `exemptIds` only for a span inside an id.
 */
export function checkText({ path, text }: TextLeaf, c: TextChecks, note: NoteFinding): Edit[] {
  // an observed object's own id (an order number, a refund id) is not personal data
  const insideId = identifierCover(text, c.identifiers);
  const exempt = (span: Span): boolean => insideId(span) && c.exemptIds();
  for (const d of detectSecrets(text))
    note(OutputReasonCodes.restrictedData, d.ruleId, path, 'block', d.span);
  for (const d of detectPersonalData(text)) {
    if (d.code !== InputReasonCodes.piiCardNumber || exempt(d.span)) continue;
    note(OutputReasonCodes.restrictedData, d.ruleId, path, 'block', d.span);
  }
  const replaced = new Map<number, { span: Span; replacements: string[] }>();
  for (const hit of findClaims(text, c.kinds)) {
    const b = c.backing.get(hit.kind.id) ?? 'none';
    if (!unsupported(hit.kind, b)) continue;
    const ruleId = `claim.${hit.kind.id}`;
    if (c.mode === 'block' || isToken(text)) {
      note(OutputReasonCodes.unsupportedClaim, ruleId, path, 'block', hit.span);
      continue;
    }
    note(OutputReasonCodes.unsupportedClaim, ruleId, path, 'rewrite', hit.span);
    const entry = replaced.get(hit.sentence.start) ?? { span: hit.sentence, replacements: [] };
    entry.replacements.push(rewriteFor(hit.kind, b, text.slice(hit.sentence.start, hit.sentence.end)));
    replaced.set(hit.sentence.start, entry);
  }
  const replacedSpans = new TakenSpans(text.length);
  for (const r of replaced.values()) replacedSpans.take(r.span);
  const inReplaced = (s: Span): boolean => replacedSpans.overlaps(s);
  for (const a of findRefundAmounts(text, sentencesOf(text))) {
    if (inReplaced(a.span)) continue;
    if (c.ceiling === undefined)
      note(
        OutputReasonCodes.amountUnverified,
        'commitment.refund_amount',
        path,
        c.actions.amountUnverified,
        a.span,
      );
    else if (a.cents > c.ceiling)
      note(OutputReasonCodes.amountOverApproved, 'commitment.refund_amount', path, 'block', a.span);
  }
  for (const d of findDates(text)) {
    if (inReplaced(d.span) || isVouched(d, text, c.vouched)) continue;
    note(
      OutputReasonCodes.dateUnverified,
      `commitment.date.${d.kind}`,
      path,
      c.actions.dateUnverified,
      d.span,
    );
  }
  const edits: Edit[] = [...replaced.values()].map((r) => ({
    span: r.span,
    replacement: r.replacements.join(' '),
  }));
  for (const m of maskEdits(text, c.masks)) {
    if (inReplaced(m.span) || exempt(m.span)) continue;
    note(OutputReasonCodes.masked, `mask.${m.kind}`, path, 'rewrite', m.span);
    edits.push({ span: m.span, replacement: m.replacement });
  }
  return edits;
}

/** A short single-token value (an enum-like field such as `refunded`): it cannot be rewritten, only blocked. */
function isToken(text: string): boolean {
  return text.length <= 40 && !/[\s.!?。！？，,]/.test(text.trim());
}

/** `text` with the (non-overlapping) edits applied, built in one pass in text order. Never throws. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = '';
  let at = 0;
  for (const e of [...edits].sort((a, b) => a.span.start - b.span.start)) {
    out += text.slice(at, e.span.start) + e.replacement;
    at = e.span.end;
  }
  return out + text.slice(at);
}
