import type { Span } from './finding.js';
import type { Backing } from './run-evidence.js';

/** Replacement sentences for an unsupported claim, by what the evidence does show. */
export interface ClaimRewrite {
  /** Used when nothing trusted backs the effect. */
  readonly none: string;
  /** Used when the effect was observed but the claim needs verification. */
  readonly observed: string;
}

/**
 * One kind of effect a response may claim. A claim needs trusted artifacts of `artifactTypes`:
 * observed ones (`requirement: 'observed'`) or observed and verified ones (`'verified'`).
 */
export interface ClaimKind {
  /** Stable id, used in rule ids: `claim.<id>`. */
  readonly id: string;
  /** Patterns of the claim (English and Chinese), matched case-insensitively on the original text. */
  readonly patterns: readonly RegExp[];
  readonly artifactTypes: readonly string[];
  /**
   * Write tools whose invocations a person settled as succeeded (naming the external id) stand for
   * this effect once a later check verified that id: the activity was lost, so no artifact exists.
   */
  readonly actionTools?: readonly string[];
  readonly requirement: 'observed' | 'verified';
  readonly rewrite: { readonly en: ClaimRewrite; readonly zh: ClaimRewrite };
}

/** The default claim kinds: refunds (verified), pushed branches and deployments (observed). */
export const DEFAULT_CLAIM_KINDS: readonly ClaimKind[] = [
  {
    id: 'refund',
    patterns: [
      /\brefunded\b/gi,
      /\brefund\b(?:[^.!?;\n]|\.(?=\d)){0,80}?\b(?:has|have)\s+been\s+(?:successfully\s+)?(?:created|issued|processed|completed|made|sent|approved|credited|paid|executed)\b/gi,
      /\brefund\b(?:[^.!?;\n]|\.(?=\d)){0,80}?\b(?:was|were|is|got)\s+(?:successfully\s+)?(?:created|issued|processed|completed|made|sent|credited|paid|executed)\b/gi,
      /\b(?:we|i)(?:'ve|\s+have)?\s+(?:successfully\s+)?(?:issued|processed|created|made|sent|completed)\s+(?:a|the|your)?\s*(?:full\s+|partial\s+)?refund\b/gi,
      /\brefund\s+(?:is\s+)?(?:done|successful|succeeded|completed?|created|issued|processed)\b/gi,
      /已(?:经)?(?:为您|给您|帮您)?(?:全额|部分)?退款/g,
      /退款(?:已|已经)(?:创建|完成|成功|到账|发放|处理|办理|退回|原路退回)/g,
      /退款成功|成功退款/g,
    ],
    artifactTypes: ['refund'],
    // An app names its own write tools here (the refund app: refund.create, apps/refund/workflow).
    requirement: 'verified',
    rewrite: {
      en: {
        none: 'No refund has been confirmed yet.',
        observed: 'A refund was recorded, but it is not verified yet.',
      },
      zh: { none: '目前没有已确认的退款。', observed: '退款申请已记录，尚未核实。' },
    },
  },
  {
    id: 'branch_pushed',
    patterns: [
      /\b(?:branch|commits?|changes?)\b(?:[^.!?;\n]|\.(?=\d)){0,60}?\b(?:has|have)\s+been\s+pushed\b/gi,
      /\b(?:branch|commits?|changes?)\b(?:[^.!?;\n]|\.(?=\d)){0,60}?\b(?:was|were|is)\s+pushed\b/gi,
      /\b(?:we|i)(?:'ve|\s+have)?\s+pushed\b/gi,
      /\bpushed\s+(?:the\s+|a\s+|your\s+)?(?:branch|commits?|changes?)\b/gi,
      /\bpushed\s+to\b/gi,
      /已(?:经)?推送|推送成功|分支已(?:经)?(?:推送|创建)/g,
    ],
    artifactTypes: ['git.remote_branch'],
    requirement: 'observed',
    rewrite: {
      en: {
        none: 'No branch push has been observed yet.',
        observed: 'A branch push was observed, but it is not verified yet.',
      },
      zh: { none: '目前没有观察到分支推送。', observed: '已观察到分支推送，尚未核实。' },
    },
  },
  {
    id: 'deployed',
    patterns: [
      /\b(?:has|have)\s+been\s+(?:successfully\s+)?deployed\b/gi,
      /\b(?:was|were|is|are|successfully)\s+deployed\b/gi,
      /\b(?:we|i)(?:'ve|\s+have)?\s+deployed\b/gi,
      /\bdeployment\s+(?:has\s+)?(?:succeeded|successful|completed?|is\s+live)\b/gi,
      /已(?:经)?(?:部署|上线|发布)|部署成功|上线成功|发布成功/g,
    ],
    artifactTypes: ['deployment', 'pipeline.run'],
    requirement: 'observed',
    rewrite: {
      en: {
        none: 'No deployment has been observed yet.',
        observed: 'A deployment was observed, but it is not verified yet.',
      },
      zh: { none: '目前没有观察到部署。', observed: '已观察到部署，尚未核实。' },
    },
  },
];

/** Negations and conditions anywhere in the claim's clause: "nothing was refunded", "if the refund was made". */
const NEGATION_EN =
  /\b(?:not|no|never|nothing|none|cannot|unable|yet\s+to|failed\s+to|if|unless|whether)\b|n't\b/i;
const NEGATION_ZH = /未|没有|没|不|无法|尚未|并未|失败|如果|若|是否|能否/;
/** A modal right before the claim makes it a promise, not a report: "you will (soon) be refunded". */
const MODAL_BEFORE = /(?:\b(?:will|would|can|could|may|might|should|shall)|'ll)\s+(?:\w+\s+)?(?:be\s+)?$/i;
const CLAUSE_BREAK = /[,;:，；：]/g;

/** A sentence inside a string (trimmed of leading whitespace). */
export function sentenceAt(text: string, index: number): Span {
  let start = 0;
  for (let i = index - 1; i >= 0; i -= 1) {
    if (isBoundary(text, i)) {
      start = i + 1;
      break;
    }
  }
  while (start < index && /\s/.test(text[start] ?? '')) start += 1;
  let end = text.length;
  for (let i = index; i < text.length; i += 1) {
    if (isBoundary(text, i)) {
      end = i + 1;
      break;
    }
  }
  return { start, end };
}

function isBoundary(text: string, i: number): boolean {
  const c = text[i] ?? '';
  if ('。！？\n'.includes(c)) return true;
  if (!'.!?'.includes(c)) return false;
  const next = text[i + 1];
  return next === undefined || /\s/.test(next);
}

/** One claim of an effect found in a string. */
export interface ClaimHit {
  readonly kind: ClaimKind;
  readonly span: Span;
  /** The sentence that holds it. */
  readonly sentence: Span;
}

/**
 * Find claims of effects in `text`: pattern matches whose clause does not negate, condition or
 * promise them ("nothing was refunded", "will be refunded", "未退款"). One hit per kind and sentence.
 */
export function findClaims(text: string, kinds: readonly ClaimKind[]): ClaimHit[] {
  const out: ClaimHit[] = [];
  for (const kind of kinds) {
    for (const pattern of kind.patterns) {
      const global = pattern.flags.includes('g') ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
      for (const m of text.matchAll(global)) {
        const sentence = sentenceAt(text, m.index);
        const before = text.slice(sentence.start, m.index);
        const breaks = [...before.matchAll(CLAUSE_BREAK)];
        const clause = before.slice((breaks[breaks.length - 1]?.index ?? -1) + 1) + m[0];
        if (NEGATION_EN.test(clause) || NEGATION_ZH.test(clause) || MODAL_BEFORE.test(before)) continue;
        if (out.some((h) => h.kind.id === kind.id && h.sentence.start === sentence.start)) continue;
        out.push({ kind, span: { start: m.index, end: m.index + m[0].length }, sentence });
      }
    }
  }
  return out;
}

/** True when a claim hit needs more than `backing` gives. */
export function unsupported(kind: ClaimKind, backing: Backing): boolean {
  return kind.requirement === 'verified' ? backing !== 'verified' : backing === 'none';
}

/** The replacement sentence for an unsupported claim in `sentence` (Chinese when it holds Han characters). */
export function rewriteFor(kind: ClaimKind, backing: Backing, sentence: string): string {
  const lang = /\p{Script=Han}/u.test(sentence) ? kind.rewrite.zh : kind.rewrite.en;
  return backing === 'none' ? lang.none : lang.observed;
}

/** The sentences of `text`, in order (each trimmed of leading whitespace; empty ones left out). */
export function sentencesOf(text: string): Span[] {
  const out: Span[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i += 1) {
    if (i === text.length || isBoundary(text, i)) {
      const end = Math.min(i + 1, text.length);
      let s = start;
      while (s < end && /\s/.test(text[s] ?? '')) s += 1;
      if (s < end) out.push({ start: s, end });
      start = i + 1;
    }
  }
  return out;
}
