/**
 * The bench's peer arm: the same scripted N-step tool loop as the harness and bare arms, written as a
 * LangGraph JS graph (a `model` node and a `tool` node that loop N times) checkpointed by LangGraph's
 * SQLite checkpointer (`SqliteSaver`) to a file. Bench-only: `@langchain/*` are dev dependencies, and
 * nothing in src/ or apps/ imports this folder. See BENCHMARKS.md, "A peer side by side: LangGraph JS".
 *
 * The state holds the transcript (as an agent graph keeps its messages), the last model decision and
 * a model-call counter. Two ways to run a step:
 * - {@link inProcessSteps}: the model node answers from the same script as the scripted model
 *   (`benchScript(N)`, matched on the last message) and the tool node runs `bench.noop`'s executor. This
 *   is what a LangGraph user writes: nodes are plain functions in the graph's process.
 * - {@link activitySteps}: the nodes call the very `callModel` and `runTool` activity functions the
 *   bare arm schedules through Temporal (same evidence store, run in a mock activity context), so the
 *   only difference left to bare is who orchestrates and persists the loop.
 */
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { MockActivityEnvironment } from '@temporalio/testing';
import { benchNoopExecutor, BENCH_NOOP_TOOL } from '../../apps/bench/bench-noop-tool.js';
import { benchRoute, benchScript, BENCH_TASK_MESSAGE } from '../../apps/bench/bench-script.js';
import { sha256Hex } from '../../src/contract/sha256.js';
import { NO_EVENTS } from '../../src/contract/packed-events.js';
import type { ModelMessageInput } from '../../src/workflows/runner/ports.js';
import type {
  ModelActivities,
  ModelCallActivityInput,
  ToolActivities,
  ToolCallActivityInput,
} from '../../src/contract/activity-interfaces.js';

/** One message of the transcript the graph keeps in its state (the bare arm's message shape, plus the model's turns). */
export interface LoopMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly toolCallId?: string;
  readonly toolCalls?: readonly ProposedCall[];
}

export interface ProposedCall {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface Decision {
  readonly text: string;
  readonly toolCalls: readonly ProposedCall[];
}

/** What one step does: decide (model) and run one proposed call (tool). */
export interface StepFunctions {
  /** `newMessages`: the messages since the last model call (the task, then each tool result). */
  model(input: { runId: string; callSeq: number; newMessages: readonly LoopMessage[] }): Promise<Decision>;
  /** Returns the tool's output. */
  tool(input: { runId: string; seq: number; call: ProposedCall }): Promise<unknown>;
}

const LoopState = Annotation.Root({
  runId: Annotation<string>(),
  messages: Annotation<LoopMessage[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** Messages appended since the last model call (what the next call sends as new). */
  fresh: Annotation<LoopMessage[]>(),
  decision: Annotation<Decision | undefined>(),
  modelCalls: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
  toolCalls: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
});

export type LoopStateValue = typeof LoopState.State;

/**
 * The graph: START -> model; model -> tool while the decision proposes a call, else END; tool -> model.
 * `maxModelCalls` guards against a script that never ends (the model node throws past it). With
 * `keepTranscript` false the nodes append nothing to `messages` (the state holds only the last
 * decision, the messages since the last call and the counters), to show what the transcript costs.
 * @throws Error from the model node when more than `maxModelCalls` calls are made.
 */
export function buildLoop(fns: StepFunctions, maxModelCalls: number, keepTranscript = true) {
  return new StateGraph(LoopState)
    .addNode('model', async (s) => {
      const callSeq = s.modelCalls + 1;
      if (callSeq > maxModelCalls) throw new Error(`more than ${maxModelCalls} model calls`);
      const decision = await fns.model({ runId: s.runId, callSeq, newMessages: s.fresh });
      return {
        decision,
        modelCalls: callSeq,
        fresh: [],
        messages: keepTranscript
          ? [{ role: 'assistant' as const, content: decision.text, toolCalls: decision.toolCalls }]
          : [],
      };
    })
    .addNode('tool', async (s) => {
      const out: LoopMessage[] = [];
      let seq = s.toolCalls;
      for (const call of s.decision?.toolCalls ?? []) {
        seq += 1;
        const output = await fns.tool({ runId: s.runId, seq, call });
        out.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify({ output: output ?? null }) });
      }
      return { toolCalls: seq, fresh: out, messages: keepTranscript ? out : [] };
    })
    .addEdge(START, 'model')
    .addConditionalEdges('model', (s) => ((s.decision?.toolCalls.length ?? 0) > 0 ? 'tool' : END), [
      'tool',
      END,
    ])
    .addEdge('tool', 'model');
}

/** The first state of a run: the bare arm's system and task messages. */
export function initialState(runId: string): Partial<LoopStateValue> {
  const first: LoopMessage[] = [
    { role: 'system', content: 'bare benchmark' },
    { role: 'user', content: BENCH_TASK_MESSAGE },
  ];
  return { runId, messages: first, fresh: first, modelCalls: 0, toolCalls: 0 };
}

/** LangGraph counts supersteps (one per node run): a run of N steps takes 2N + 1. */
export function recursionLimit(steps: number): number {
  return 2 * steps + 10;
}

/**
 * In-process nodes: the scripted model of a run of `steps` steps (`benchScript`, first entry whose
 * `contains` is in the last new message) and `bench.noop`'s executor.
 * @throws Error from `model` when no script entry matches.
 */
export function inProcessSteps(steps: number): StepFunctions {
  const script = benchScript(steps);
  const ctx = { signal: new AbortController().signal, heartbeat: () => undefined };
  return {
    model({ callSeq, newMessages }) {
      const last = newMessages[newMessages.length - 1]?.content ?? '';
      const entry = script.entries.find(
        (e) => e.match.contains !== undefined && last.includes(e.match.contains),
      );
      if (!entry) return Promise.reject(new Error(`no script entry matches call ${callSeq}`));
      return Promise.resolve({
        text: entry.response.text ?? '',
        toolCalls: (entry.response.toolCalls ?? []).map((c, k) => ({
          id: `c${callSeq}-${k}`,
          name: c.name,
          version: c.version ?? 'v1',
          args: c.args ?? {},
        })),
      });
    },
    async tool({ runId, seq, call }) {
      const args = call.args;
      const result = await benchNoopExecutor.execute(ctx, {
        runId,
        seq,
        tool: call.name,
        version: call.version,
        args,
        idempotencyKey: `${runId}/${seq}`,
      });
      return result.output;
    },
  };
}

/** Run an activity function in the mock activity context (its heartbeats go nowhere). */
function inContext<I, O>(env: MockActivityEnvironment, fn: (input: I) => Promise<O>, input: I): Promise<O> {
  return env.run<[I], O, (input: I) => Promise<O>>(fn, input);
}

/**
 * Nodes that call the bare arm's activities (`callModel`, `runTool` of `harnessActivities(composition)`)
 * with the bare arm's inputs, each in a mock activity context (no Temporal server involved).
 */
export function activitySteps(activities: ModelActivities & ToolActivities, steps: number): StepFunctions {
  const env = new MockActivityEnvironment();
  return {
    async model({ runId, callSeq, newMessages }) {
      const input: ModelCallActivityInput = {
        runId,
        callSeq,
        purpose: 'decide',
        modelRoute: benchRoute(steps),
        newMessages: newMessages.map((m): ModelMessageInput => ({
          role: m.role === 'assistant' ? 'user' : m.role,
          content: m.content,
          ...(m.toolCallId ? { toolCallId: m.toolCallId } : {}),
          trust: m.role === 'system' ? 'system' : 'untrusted',
        })),
        toolKeys: [`${BENCH_NOOP_TOOL}@v1`],
        events: NO_EVENTS,
      };
      const decision = await inContext(env, (i: ModelCallActivityInput) => activities.callModel(i), input);
      return {
        text: decision.text,
        toolCalls: decision.toolCalls.map((c) => ({
          id: c.id,
          name: c.name,
          version: c.version,
          args: (c.args ?? {}) as Record<string, unknown>,
        })),
      };
    },
    async tool({ runId, seq, call }) {
      const input: ToolCallActivityInput = {
        runId,
        seq,
        tool: call.name,
        version: call.version,
        effect: 'read',
        args: call.args,
        argsDigest: `sha256:${sha256Hex(JSON.stringify(call.args))}`,
        idempotencyKey: `${runId}/${seq}`,
        events: NO_EVENTS,
      };
      const result = await inContext(env, (i: ToolCallActivityInput) => activities.runTool(i), input);
      return result.output ?? null;
    },
  };
}

/** A checkpointer on its own SQLite file (WAL, as `SqliteSaver.setup()` sets it; SQLite's default `synchronous`). */
export function openSaver(file: string): { saver: SqliteSaver; db: Database.Database } {
  const db = new Database(file);
  const saver = new SqliteSaver(db);
  return { saver, db };
}

/** What a thread left in the checkpointer's tables, in bytes. */
export interface PersistedBytes {
  readonly checkpoints: number;
  /** Rows of the `checkpoints` table (one per superstep, plus the input's). */
  readonly checkpointRows: number;
  /** `checkpoint` + `metadata` blobs. */
  readonly checkpointBytes: number;
  readonly writeRows: number;
  /** `value` blobs of the pending-writes table. */
  readonly writeBytes: number;
  /** Both, plus the key columns of every row (thread, namespace, ids, channel, type). */
  readonly rowBytes: number;
}

/** Sum the blob and row sizes one thread left in a SqliteSaver's tables. */
export function persistedBytes(db: Database.Database, threadId: string): PersistedBytes {
  const c = db
    .prepare(
      `SELECT count(*) AS n, coalesce(sum(length(checkpoint) + length(metadata)), 0) AS blobs,
        coalesce(sum(length(thread_id) + length(checkpoint_ns) + length(checkpoint_id)
          + coalesce(length(parent_checkpoint_id), 0) + coalesce(length(type), 0)), 0) AS keys
       FROM checkpoints WHERE thread_id = ?`,
    )
    .get(threadId) as { n: number; blobs: number; keys: number };
  const w = db
    .prepare(
      `SELECT count(*) AS n, coalesce(sum(length(value)), 0) AS blobs,
        coalesce(sum(length(thread_id) + length(checkpoint_ns) + length(checkpoint_id) + length(task_id)
          + 8 + length(channel) + coalesce(length(type), 0)), 0) AS keys
       FROM writes WHERE thread_id = ?`,
    )
    .get(threadId) as { n: number; blobs: number; keys: number };
  return {
    checkpoints: c.n,
    checkpointRows: c.n,
    checkpointBytes: c.blobs,
    writeRows: w.n,
    writeBytes: w.blobs,
    rowBytes: c.blobs + c.keys + w.blobs + w.keys,
  };
}

/** The SQLite file's size after folding the WAL into it (`wal_checkpoint(TRUNCATE)`). */
export function fileBytes(db: Database.Database, file: string): number {
  db.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(file).size;
}

export type Durability = 'sync' | 'async';

/** The loop for runs of `steps` steps, compiled with a checkpointer. */
export function compileLoop(saver: SqliteSaver, fns: StepFunctions, steps: number, keepTranscript = true) {
  return buildLoop(fns, steps + 1, keepTranscript).compile({ checkpointer: saver });
}

export type CompiledLoop = ReturnType<typeof compileLoop>;

/**
 * Run one thread of `steps` steps to its end and check it: `steps` tool calls, final text `done`.
 * @throws Error when the run did not do what the benchmark expects.
 */
export async function runLoop(
  graph: CompiledLoop,
  steps: number,
  threadId: string,
  durability: Durability,
): Promise<LoopStateValue> {
  const final = await graph.invoke(initialState(threadId), {
    configurable: { thread_id: threadId },
    recursionLimit: recursionLimit(steps),
    durability,
  });
  if (final.toolCalls !== steps || final.decision?.text !== 'done')
    throw new Error(`peer run ${threadId} made ${final.toolCalls} tool calls, expected ${steps}`);
  return final;
}
