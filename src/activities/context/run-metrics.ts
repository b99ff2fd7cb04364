import {
  instructionDataSeparation,
  passRate,
  refMatches,
  requiredFactRecall,
  staleContextRate,
  tokensPerSuccessfulStep,
  unauthorizedContextRate,
  type StepTokens,
} from './metrics.js';
import { loadRequestPackage } from './package-store.js';
import { renderRequest } from './request-package.js';
import { ContextPackageSchema, type ContextItem, type ContextPackage } from './types.js';

/** What an eval case says of its context (seed 004), when it says it. */
export interface ContextLabels {
  /**
   * Facts every call of the run should see (recall), and facts relevant to it (precision): each a
   * tool name (`order.read`, matches `tool://order.read@…` items) or a `sourceRef` key
   * ({@link refMatches}: `memory://t1/order`, `message://…`).
   */
  readonly requiredFacts?: readonly string[];
  readonly relevantFacts?: readonly string[];
  /** Sources the calls may see; default: the run's own (see {@link contextMetricsOfRun}). */
  readonly allowedSources?: readonly string[];
}

/** A stored run event as the metrics read it (the evidence store's rows fit). */
export interface MetricsEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The context metrics of seed 004 over one run's request packages. Rates are means over packages. */
export interface RunContextMetrics {
  readonly runId: string;
  /** Request packages read (model calls with a stored package). */
  readonly packages: number;
  /** Share of sent data items that are relevant; null without `relevantFacts`. */
  readonly precision: number | null;
  /**
   * Share of required facts each call saw (whole or as a summary). With `requiredFacts`: those.
   * Without: the call's instructions, its task and the results it answers (items of the call itself).
   */
  readonly requiredFactRecall: number;
  /** Share of sent items expired, not yet effective or superseded at the package's build time. */
  readonly staleRate: number;
  /** Share of sent items from sources outside `allowedSources`, or instructions without system trust. */
  readonly unauthorizedRate: number;
  /** Share of packages whose rendered request passes {@link instructionDataSeparation}. */
  readonly separationPassRate: number;
  /** Packages that left something out for the window (budget or summarised). */
  readonly packagesOverWindow: number;
  /** Context utilization: the mean share of the available tokens the requests used. */
  readonly utilization: number;
  /** Tool results the input guardrail flagged or would block (distinct items over the run). */
  readonly toolOutputsFlagged: number;
  /** Tokens of all model calls (input + output, summaries included) per successful step; null when none succeeded. */
  readonly tokensPerSuccessfulStep: number | null;
  /** Per package: the violations of separation, for a report to show (at most 20). */
  readonly separationViolations: readonly {
    readonly packageId: string;
    readonly violations: readonly string[];
  }[];
}

const mean = (xs: readonly number[], empty: number): number =>
  xs.length === 0 ? empty : xs.reduce((a, b) => a + b, 0) / xs.length;

/** `label` as a ref key: a bare tool name becomes the prefix of its tool items. */
function matches(sourceRef: string, label: string): boolean {
  return refMatches(sourceRef, label) || (!label.includes('://') && sourceRef.startsWith(`tool://${label}@`));
}

/** The run's own sources: its messages, the model's turns, its tool results, its summaries, memory recalled for it. */
function ownSources(runId: string): string[] {
  return [
    `message://${runId}`,
    `model://${runId}`,
    `artifact://ctx-summary:${runId}:`,
    'tool://',
    'memory://',
  ];
}

const isOwn = (sourceRef: string, prefixes: readonly string[]): boolean =>
  prefixes.some(
    (p) => sourceRef === p || sourceRef.startsWith(p.endsWith(':') || p.endsWith('//') ? p : `${p}/`),
  );

/** The items of the call itself (its new messages): required by default. */
const callItems = (pkg: ContextPackage): ContextItem[] => {
  const seq = /:ctx(\d+)$/.exec(pkg.packageId)?.[1];
  return pkg.items.filter(
    (i) =>
      i.kind === 'instruction' ||
      i.kind === 'task_state' ||
      (seq !== undefined && i.itemId.includes(`:m${seq}:`)),
  );
};

/**
 * Steps from the run's events: one per answered model call (`model.completed`), with its tokens
 * (input + output); it succeeded when every tool call it proposed completed `succeeded`, or, for a
 * final answer, when the run completed.
 */
export function stepsOfEvents(events: readonly MetricsEvent[]): StepTokens[] {
  const steps: { tokens: number; succeeded: boolean; tools: number }[] = [];
  for (const e of events) {
    const last = steps.at(-1);
    if (e.type === 'model.completed') {
      const usage = e.data.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      const tools = Array.isArray(e.data.toolCalls) ? e.data.toolCalls.length : 0;
      steps.push({
        tokens: (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0),
        succeeded: tools > 0,
        tools,
      });
    } else if (last && e.type === 'tool.failed') last.succeeded = false;
    else if (last && e.type === 'tool.completed' && e.data.status !== 'succeeded') last.succeeded = false;
    else if (last && last.tools === 0 && e.type === 'run.completed') last.succeeded = true;
  }
  return steps.map(({ tokens, succeeded }) => ({ tokens, succeeded }));
}

/**
 * The context metrics of seed 004 for one run, from its stored request packages (in call order,
 * e.g. {@link loadRunPackages}) and its stored events. Pure: the same input gives the same report.
 * Packages that do not parse as a {@link ContextPackage} (from before packages were requests) are
 * skipped and not counted.
 */
export function contextMetricsOfRun(input: {
  readonly runId: string;
  readonly packages: readonly unknown[];
  readonly events: readonly MetricsEvent[];
  readonly labels?: ContextLabels;
}): RunContextMetrics {
  const pkgs = input.packages.flatMap((p) => {
    const parsed = ContextPackageSchema.safeParse(p);
    return parsed.success && parsed.data.builtAt !== undefined ? [parsed.data] : [];
  });
  const labels = input.labels ?? {};
  const own = ownSources(input.runId);
  const precision =
    labels.relevantFacts === undefined
      ? null
      : mean(
          pkgs.map((p) => {
            const data = p.items.filter((i) => i.kind !== 'instruction');
            if (data.length === 0) return 1;
            return (
              data.filter((i) => labels.relevantFacts!.some((l) => matches(i.sourceRef, l))).length /
              data.length
            );
          }),
          1,
        );
  const recall = mean(
    pkgs.map((p) => {
      if (labels.requiredFacts !== undefined)
        return labels.requiredFacts.length === 0
          ? 1
          : labels.requiredFacts.filter((l) => p.items.some((i) => matches(i.sourceRef, l))).length /
              labels.requiredFacts.length;
      const required = callItems(p);
      return requiredFactRecall(
        p,
        required.map((i) => i.sourceRef),
      );
    }),
    1,
  );
  const separation = pkgs.map((p) => ({ p, r: instructionDataSeparation(p, renderRequest(p)) }));
  return {
    runId: input.runId,
    packages: pkgs.length,
    precision,
    requiredFactRecall: recall,
    staleRate: mean(
      pkgs.map((p) => staleContextRate(p, p.builtAt!)),
      0,
    ),
    unauthorizedRate: mean(
      pkgs.map((p) =>
        labels.allowedSources !== undefined
          ? unauthorizedContextRate(p, labels.allowedSources)
          : p.items.length === 0
            ? 0
            : p.items.filter(
                (i) => (i.kind === 'instruction' && i.trust !== 'system') || !isOwn(i.sourceRef, own),
              ).length / p.items.length,
      ),
      0,
    ),
    separationPassRate: passRate(separation.map((s) => s.r.pass)),
    packagesOverWindow: pkgs.filter(
      (p) =>
        p.omittedTurns !== undefined ||
        p.omissions.some((o) => o.reason === 'budget' || o.reason === 'summarized'),
    ).length,
    utilization: mean(
      pkgs.map((p) => (p.availableTokens === 0 ? 0 : p.totalTokenEstimate / p.availableTokens)),
      0,
    ),
    toolOutputsFlagged: new Set(pkgs.flatMap((p) => p.items.filter((i) => i.guardrail).map((i) => i.itemId)))
      .size,
    tokensPerSuccessfulStep: tokensPerSuccessfulStep(stepsOfEvents(input.events)),
    separationViolations: separation
      .filter((s) => !s.r.pass)
      .slice(0, 20)
      .map((s) => ({ packageId: s.p.packageId, violations: s.r.violations })),
  };
}

/** Where a run's request packages are: the evidence store's message groups and blobs. */
export interface PackageSource {
  listMessageGroups(
    runId: string,
  ): Promise<readonly { readonly seq: number; readonly messages: readonly unknown[] }[]>;
  getBlob(ref: string): Promise<unknown>;
}

/**
 * The request packages of a run, in call order, read from the evidence store (each message group
 * names its package by blob ref). Store errors are thrown as the store throws them.
 */
export async function loadRunPackages(store: PackageSource, runId: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const g of await store.listMessageGroups(runId)) {
    const ref = (g.messages[0] as { context?: { ref?: unknown } } | undefined)?.context?.ref;
    if (typeof ref === 'string') out.push(await loadRequestPackage(store, ref));
  }
  return out;
}
