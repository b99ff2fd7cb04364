import { ApplicationFailure } from '@temporalio/common';
import { checkInput } from '../workflows/index.js';
import type { AnyModelCallActivityInput } from '../contract/activity-interfaces.js';
import type { ToolRegistry } from '../registry/index.js';
import { ContextError } from './context/errors.js';
import { planRequest } from './context/plan-request.js';
import type {
  RequestPackageInput,
  RequestPackagePlan,
  ToolOutputScan,
  TurnMemo,
} from './context/request-package.js';
import { TOKENS_PER_MESSAGE, countWith, type TokenizerName } from './context/tokenizer.js';
import { NO_SUMMARY, retrievedItem } from './context/transcript-items.js';
import type { ContextItem } from './context/types.js';
import type { ModelToolSpec } from './model/types.js';
import type { ModelRouter, ResolvedRoute } from './model-router.js';
import { resolveReferences, type Transcript } from './model-transcript.js';
import { summarizeObservation, type SummaryCalls } from './observation-summaries.js';
import { resolveModelRoute } from './resolve-model-route.js';
import { StoreError, retrievalOf, type EvidenceStore } from './store/index.js';
import { RETRIEVAL_MAX_QUERY_CHARS } from '../contract/retrieval.js';
import type { ModelMessageInput } from '../contract/step-io.js';

/** The policy version of request packages (docs/context.md, "The request is the package"). */
export const CONTEXT_POLICY_VERSION = 'context/v3';
/** The policy version of request packages of calls that ask `contextOrder: 'priority'` (seed 004's order). */
export const CONTEXT_PRIORITY_POLICY_VERSION = 'context/v4';
/** The output reserve of a route without `maxOutputTokens`: this, or a quarter of its window if less. */
export const DEFAULT_OUTPUT_RESERVE = 4_096;

/** Tokens counted per (tokenizer, text), kept across calls: a run's items are counted once. */
class TokenMemo {
  private readonly counts = new Map<string, number>();
  /** Characters held in keys: the memo is emptied above {@link TokenMemo.MAX_CHARS} (about 32 MB). */
  private chars = 0;
  private static readonly MAX_CHARS = 16_000_000;
  counter(tokenizer: TokenizerName): (text: string) => number {
    return (text) => {
      const key = `${tokenizer}\u0000${text}`;
      let n = this.counts.get(key);
      if (n === undefined) {
        n = countWith(tokenizer, text);
        if (this.chars + key.length > TokenMemo.MAX_CHARS) {
          this.counts.clear();
          this.chars = 0;
        }
        this.counts.set(key, n);
        this.chars += key.length;
      }
      return n;
    };
  }
}

/**
 * Tool output scanned by the input guardrail like user input (default configuration), memoised by
 * item id (an item's content never changes). Only the verdict and reason codes are kept.
 */
class ToolOutputScanner {
  private readonly seen = new Map<string, ToolOutputScan>();
  scan = (item: ContextItem): ToolOutputScan => {
    let found = this.seen.get(item.itemId);
    if (found === undefined) {
      const r = checkInput(item.content);
      found = {
        ...(r.verdict === 'pass'
          ? {}
          : { guardrail: { verdict: r.verdict, reasonCodes: [...r.reasonCodes] } }),
        access: r.dataClassification,
      };
      if (this.seen.size >= 100_000) this.seen.clear();
      this.seen.set(item.itemId, found);
    }
    return found;
  };
}

/** What the request planner reads: the tools, the evidence store and the model routes. */
export interface ModelRequestDeps {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly models: ModelRouter;
}

/** The request of one model call, planned within its route's window. */
export interface ModelRequest {
  readonly route: ResolvedRoute;
  readonly tools: ModelToolSpec[];
  /** Tokens kept free for the answer (its bound when the route configures a window). */
  readonly outputReserve: number;
  readonly plan: RequestPackagePlan;
  /** The summarize calls made for this request (counted with its usage). */
  readonly made: SummaryCalls;
  /** The summaries known after this request (those made for it added) and the turns it measured. */
  readonly summaries: ReadonlyMap<string, string>;
  readonly memo: TurnMemo;
}

/**
 * Plans model calls' requests: each call's package within its route's window, older observations
 * summarised on the run's summarize route when the plan asks for it. Counts tokens and scans tool
 * output once per worker (memoised across calls).
 */
export class ModelRequestPlanner {
  private readonly tokens = new TokenMemo();
  private readonly scanner = new ToolOutputScanner();

  constructor(private readonly deps: ModelRequestDeps) {}

  /**
   * The request of call `input` after `transcript`: this call's new messages (references resolved),
   * the tool specs, the route, and the plan; when the plan sends observations as summaries not made
   * yet, asks for them (at most `MAX_NEW_SUMMARIES_PER_CALL`; a failed one sends the reference
   * alone) and plans again.
   * @throws ApplicationFailure `model.reference_missing`, `store.invalid_query` (a retrieval outside
   *   its bounds) or a `context.*` code (non-retryable);
   *   `model.unknown_route` or `model.route_changed` (retryable: another worker may serve the route); the registry's error for an unknown tool and the
   *   store's errors as thrown; a cancellation during a summarize call.
   */
  async plan(input: AnyModelCallActivityInput, transcript: Transcript): Promise<ModelRequest> {
    const { registry, store, models } = this.deps;
    const priority = input.contextOrder === 'priority';
    const newMessages = await resolveReferences(store, input.runId, input.newMessages, priority);
    const tools = toolSpecsOf(registry, input.toolKeys);
    const route = resolveModelRoute(
      models,
      input.modelRoute,
      input.routeDigest,
      input.workerRefusal === true,
    );
    const count = this.tokens.counter(route.tokenizer);
    const outputReserve =
      route.maxOutputTokens ?? Math.min(DEFAULT_OUTPUT_RESERVE, Math.floor(route.contextWindow / 4));
    const requestOverhead =
      (tools.length > 0 ? count(JSON.stringify(tools)) + tools.length * TOKENS_PER_MESSAGE : 0) +
      (input.outputSchema ? count(JSON.stringify(input.outputSchema)) : 0);
    const summaries = new Map(transcript.summaries);
    const memo: TurnMemo = transcript.memo ?? { tokenizer: route.tokenizer, turns: new Map() };
    const retrieved = priority ? await retrieve(store, input, transcript, newMessages) : [];
    const planInput: RequestPackageInput = {
      runId: input.runId,
      callSeq: input.callSeq,
      groups: transcript.groups,
      newMessages,
      budget: {
        contextWindow: route.contextWindow,
        outputReserve,
        requestOverhead,
        tokenizer: route.tokenizer,
      },
      route: input.modelRoute,
      now: new Date().toISOString(),
      policyVersion: priority ? CONTEXT_PRIORITY_POLICY_VERSION : CONTEXT_POLICY_VERSION,
      ...(priority ? { priority: true } : {}),
      ...(priority && input.flaggedToolOutput === 'withhold' ? { withholdFlagged: true } : {}),
      ...(retrieved.length > 0 ? { retrieved } : {}),
      summaries,
      count,
      scan: this.scanner.scan,
      memo,
    };
    let plan = planOrFail(planInput);
    const made: SummaryCalls = { calls: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
    if (plan.wanted.length > 0) {
      const sent = new Map(summaries);
      for (const item of plan.wanted) {
        const got = await summarizeObservation(store, models, input, item, made);
        sent.set(item.itemId, got ?? NO_SUMMARY);
        if (got !== undefined) summaries.set(item.itemId, got);
      }
      plan = planOrFail({ ...planInput, summaries: sent });
    }
    return { route, tools, outputReserve, plan, made, summaries, memo };
  }
}

/**
 * The references the call asks for (`input.retrieval`): the run's task text as the query, on the
 * store's retrieval port, as context items. None when the call asks for none or the store has no port.
 * @throws ApplicationFailure `store.invalid_query` (non-retryable) for a retrieval outside its bounds
 *   (the policy's `limit`); other store errors as thrown.
 */
async function retrieve(
  store: EvidenceStore,
  input: AnyModelCallActivityInput,
  transcript: Transcript,
  newMessages: readonly ModelMessageInput[],
): Promise<ContextItem[]> {
  const asked = input.retrieval;
  const port = asked ? retrievalOf(store) : undefined;
  if (!asked || !port) return [];
  const first = transcript.groups[0]?.input ?? newMessages;
  const task = first.find((m) => m.role === 'user')?.content ?? '';
  const refs = await port
    .retrieve({
      tenantId: asked.tenantId,
      text: task.slice(0, RETRIEVAL_MAX_QUERY_CHARS),
      limit: asked.limit,
      maxAccess: asked.maxAccess,
    })
    .catch((err: unknown) => {
      // A policy asking for a retrieval outside its bounds fails the call for good: it would every time.
      if (err instanceof StoreError && err.code === 'store.invalid_query')
        throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
      throw err;
    });
  return refs.map((r, k) => retrievedItem(input.runId, input.callSeq, k, r));
}

/**
 * The specs of the tools a call offers the model, from `name@version` keys.
 * @throws the registry's error for a tool it does not hold.
 */
function toolSpecsOf(registry: ToolRegistry, toolKeys: readonly string[]): ModelToolSpec[] {
  return toolKeys.map((key) => {
    const at = key.lastIndexOf('@');
    const { definition } = registry.get(key.slice(0, at), key.slice(at + 1));
    return {
      name: definition.name,
      version: definition.version,
      description: definition.description,
      parameters: definition.parameters,
    };
  });
}

/**
 * {@link planRequest}, its {@link ContextError} made the call's failure: deterministic, so the call
 * fails for good with its code.
 * @throws ApplicationFailure with the ContextError's code (non-retryable); any other error as thrown.
 */
function planOrFail(input: RequestPackageInput): RequestPackagePlan {
  try {
    return planRequest(input);
  } catch (err) {
    if (err instanceof ContextError)
      throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
    throw err;
  }
}
