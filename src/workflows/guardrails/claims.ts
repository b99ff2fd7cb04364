import { claimHedges } from './claim-hedges.js';
import type { Span } from './finding.js';
import type { Backing } from './run-evidence.js';
import { sentenceLocator } from './sentences.js';

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
      // `\s+(?:(?:a|the|your)\s*)?`, not `\s+(?:a|the|your)?\s*`: without an article the two adjacent
      // whitespace quantifiers would try every split of a long whitespace run (O(n²))
      /\b(?:we|i)(?:'ve|\s+have)?\s+(?:successfully\s+)?(?:issued|processed|created|made|sent|completed)\s+(?:(?:a|the|your)\s*)?(?:full\s+|partial\s+)?refund\b/gi,
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
 * Linear in the length of `text` (times log n per match) for patterns that are linear themselves,
 * as the default kinds' are: each is anchored at a literal word, with bounded windows between.
 * Never throws.
 */
export function* findClaims(text: string, kinds: readonly ClaimKind[]): Generator<ClaimHit> {
  const sentenceAt = sentenceLocator(text);
  const hedged = claimHedges(text);
  const claimed = new Map<string, Set<number>>();
  for (const kind of kinds) {
    const sentences = claimed.get(kind.id) ?? new Set<number>();
    claimed.set(kind.id, sentences);
    for (const pattern of kind.patterns) {
      const global = pattern.flags.includes('g') ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
      for (const m of text.matchAll(global)) {
        const sentence = sentenceAt(m.index);
        const end = m.index + m[0].length;
        if (sentences.has(sentence.start) || hedged(sentence, m.index, end)) continue;
        sentences.add(sentence.start);
        yield { kind, span: { start: m.index, end }, sentence };
      }
    }
  }
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
