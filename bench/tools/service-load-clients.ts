/**
 * The load of the service load test, in its own process (bench/tools/service-load.ts starts it;
 * not meant to be run by hand), so none of it shares an event loop with the service:
 *
 * - run starts through the service (`POST LOAD_URL/v1/runs` with `LOAD_BODY`) at `LOAD_RATE` per
 *   second for the first half of `LOAD_SECONDS` and at twice that for the second half; for every
 *   start the service accepts, one `startAgentRun` of `LOAD_PLAIN_INPUT` on the Temporal server at
 *   `LOAD_ADDRESS`/`LOAD_NAMESPACE`, task queue `LOAD_TASK_QUEUE` (the plain arm), signed with the
 *   service's delegate key file `LOAD_DELEGATE_KEY` (JSON) as the service signs;
 * - `LOAD_CLIENTS` SSE clients on the run service at `LOAD_URL` (bearer `LOAD_BEARER`), each
 *   following a run of the service arm to its terminal event, then the next; a quarter of the
 *   connections are cut after 1-6 events and resumed with `Last-Event-ID`;
 * - `LOAD_CLIENTS` plain followers polling the evidence store (`LOAD_STORE_URL`) with `listEvents`
 *   every `LOAD_POLL_MS`, following runs of the plain arm.
 *
 * Prints "ready", starts on a `go` line on stdin, prints "starts-over" when the start phase has
 * ended; then followers finish the run they follow (at most `LOAD_GRACE_MS`), the result is written
 * to `LOAD_OUT` as JSON and "done" printed. Stdin closing stops everything.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { httpAgent, postJson } from '../lib/http-json.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { DecisionKeyFile } from '../../src/client/decisions/decision-key.js';
import { startAgentRun } from '../../src/client/start-run.js';
import { plainStartSigner } from '../lib/plain-start-signer.js';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { TERMINAL_EVENT_TYPES } from '../../src/service/run-event-feed.js';
import { openEvidenceStore } from '../../src/activities/store/open-evidence-store.js';
import type { EvidenceStore } from '../../src/activities/store/index.js';
import { sseEvents } from '../lib/sse.js';

export type Arm = 'service' | 'plain';

/** What one follower saw of one run (over all its connections). */
export interface Follow {
  readonly arm: Arm;
  readonly client: number;
  readonly runId: string;
  readonly seqs: number[];
  completed: boolean;
  connections: number;
  cuts: number;
  /** Streams that ended without the terminal event and without a cut (then resumed). */
  earlyEnds: number;
  /** In-flight problems: an id that is not the last one + 1, an error. */
  readonly problems: string[];
}

export interface StartSample {
  readonly arm: Arm;
  /** ms since the start phase began, when the call was made. */
  readonly at: number;
  readonly phase: 'at_rate' | 'above_rate' | 'probe';
  readonly status: number;
  readonly code?: string;
  readonly ms: number;
  /** Service starts: the request's x-load-id and its send time (epoch ms, fractional). */
  readonly id?: string;
  readonly sentAt?: number;
}

export interface ClientsResult {
  readonly starts: StartSample[];
  /** Epoch ms when the start phase began, and how long it lasted (until every start answered). */
  readonly t0: number;
  readonly startPhaseMs: number;
  /** This process's event loop delay during the start phase (ms). */
  readonly loopDelay: { p50: number; p99: number; max: number };
  readonly follows: Follow[];
  /** Event delivery latency samples (ms): receive time - occurredAt, events that occurred while connected. */
  readonly latencies: Record<Arm, number[]>;
  readonly counters: {
    sse429: number;
    sseErrors: number;
    sseErrorEvents: number;
    plainErrors: number;
  };
  /** Once a second (t: epoch ms): open SSE streams and plain followers following a run. */
  readonly concurrency: { t: number; service: number; plain: number }[];
}

/** Share of SSE connections cut after 1-6 events and resumed with Last-Event-ID. */
const CUT_SHARE = 0.25;

interface TrackedRun {
  readonly runId: string;
  readonly startedAt: number;
  followers: number;
  ended: boolean;
}

/** Runs of one arm that followers can pick: the one with the fewest followers, newest first. */
class RunPool {
  private readonly runs: TrackedRun[] = [];
  add(runId: string): void {
    this.runs.push({ runId, startedAt: Date.now(), followers: 0, ended: false });
  }
  pick(): TrackedRun | undefined {
    const since = Date.now() - 60_000;
    let best: TrackedRun | undefined;
    for (let i = this.runs.length - 1; i >= 0; i--) {
      const r = this.runs[i]!;
      if (r.startedAt < since) break;
      if (r.ended) continue;
      if (!best || r.followers < best.followers) best = r;
    }
    return best;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((res) => {
    if (signal?.aborted) return res();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      res();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const url = env('LOAD_URL');
  const bearer = env('LOAD_BEARER');
  const clients = Number(env('LOAD_CLIENTS'));
  const pollMs = Number(env('LOAD_POLL_MS'));
  const graceMs = Number(env('LOAD_GRACE_MS'));
  const store: EvidenceStore = await openEvidenceStore(env('LOAD_STORE_URL'));
  const seconds = Number(env('LOAD_SECONDS'));
  const rate = Number(env('LOAD_RATE'));
  const body = JSON.parse(env('LOAD_BODY')) as unknown;
  const plainInput = JSON.parse(env('LOAD_PLAIN_INPUT')) as AgentRunInput;
  const plainSigner = plainStartSigner(JSON.parse(env('LOAD_DELEGATE_KEY')) as DecisionKeyFile, plainInput);
  const taskQueue = env('LOAD_TASK_QUEUE');
  const connection = await Connection.connect({ address: env('LOAD_ADDRESS') });
  const client = new Client({ connection, namespace: env('LOAD_NAMESPACE') });
  const starts: StartSample[] = [];
  const pools: Record<Arm, RunPool> = { service: new RunPool(), plain: new RunPool() };
  const follows: Follow[] = [];
  const latencies: Record<Arm, number[]> = { service: [], plain: [] };
  const counters = { sse429: 0, sseErrors: 0, sseErrorEvents: 0, plainErrors: 0 };
  const open = { service: 0, plain: 0 };
  const startsOver = new AbortController();
  const hardStop = new AbortController();
  setMaxListeners(0, startsOver.signal, hardStop.signal);

  const followSse = async (client: number, run: TrackedRun): Promise<Follow> => {
    const f: Follow = {
      arm: 'service',
      client,
      runId: run.runId,
      seqs: [],
      completed: false,
      connections: 0,
      cuts: 0,
      earlyEnds: 0,
      problems: [],
    };
    let last: number | undefined;
    while (!hardStop.signal.aborted) {
      const conn = new AbortController();
      const onStop = () => conn.abort();
      hardStop.signal.addEventListener('abort', onStop, { once: true });
      const cutAfter = Math.random() < CUT_SHARE ? 1 + Math.floor(Math.random() * 6) : Infinity;
      const openedAt = Date.now();
      let n = 0;
      let cut = false;
      let counted = false;
      try {
        const res = await fetch(`${url}/v1/runs/${encodeURIComponent(run.runId)}/events`, {
          headers: {
            authorization: bearer,
            accept: 'text/event-stream',
            ...(last !== undefined ? { 'last-event-id': String(last) } : {}),
          },
          signal: conn.signal,
        });
        if (res.status === 429) {
          counters.sse429 += 1;
          await res.body?.cancel();
          await sleep(1_000, hardStop.signal);
          continue;
        }
        if (!res.ok || !res.body) {
          counters.sseErrors += 1;
          f.problems.push(`HTTP ${res.status} opening the stream`);
          await res.body?.cancel();
          await sleep(500, hardStop.signal);
          continue;
        }
        f.connections += 1;
        open.service += 1;
        counted = true;
        for await (const e of sseEvents(res.body)) {
          const receivedAt = Date.now();
          if (e.id === undefined) {
            if (e.event === 'error') counters.sseErrorEvents += 1;
            if (e.event === 'end') f.problems.push(`end event: ${e.data.slice(0, 100)}`);
            continue;
          }
          const seq = Number(e.id);
          if (last !== undefined && seq !== last + 1) f.problems.push(`id ${seq} after ${last}`);
          f.seqs.push(seq);
          last = seq;
          if (e.event !== 'omitted') {
            const occurredAt = Date.parse((JSON.parse(e.data) as { occurredAt?: string }).occurredAt ?? '');
            if (occurredAt >= openedAt) latencies.service.push(receivedAt - occurredAt);
          }
          if (TERMINAL_EVENT_TYPES.has(e.event)) {
            f.completed = true;
            break;
          }
          if (++n >= cutAfter) {
            cut = true;
            break;
          }
        }
      } catch (err) {
        if (!hardStop.signal.aborted && (err as Error).name !== 'AbortError') {
          counters.sseErrors += 1;
          f.problems.push(`stream error: ${(err as Error).message.slice(0, 100)}`);
        }
      } finally {
        if (counted) open.service -= 1;
        hardStop.signal.removeEventListener('abort', onStop);
        conn.abort();
      }
      if (f.completed) break;
      if (cut) f.cuts += 1;
      else if (!hardStop.signal.aborted) f.earlyEnds += 1;
    }
    return f;
  };

  const followPlain = async (client: number, run: TrackedRun): Promise<Follow> => {
    const f: Follow = {
      arm: 'plain',
      client,
      runId: run.runId,
      seqs: [],
      completed: false,
      connections: 1,
      cuts: 0,
      earlyEnds: 0,
      problems: [],
    };
    const openedAt = Date.now();
    let last: number | undefined;
    open.plain += 1;
    try {
      while (!hardStop.signal.aborted) {
        let batch;
        try {
          batch = await store.listEvents(
            run.runId,
            last !== undefined ? { afterSeq: last, limit: 500 } : { limit: 500 },
          );
        } catch (err) {
          counters.plainErrors += 1;
          f.problems.push(`listEvents: ${(err as Error).message.slice(0, 100)}`);
          await sleep(pollMs, hardStop.signal);
          continue;
        }
        const receivedAt = Date.now();
        for (const e of batch) {
          if (last !== undefined && e.seq !== last + 1) f.problems.push(`seq ${e.seq} after ${last}`);
          f.seqs.push(e.seq);
          last = e.seq;
          const occurredAt = Date.parse(e.occurredAt);
          if (occurredAt >= openedAt) latencies.plain.push(receivedAt - occurredAt);
          if (TERMINAL_EVENT_TYPES.has(e.type)) {
            f.completed = true;
            return f;
          }
        }
        if (batch.length === 500) continue;
        await sleep(pollMs, hardStop.signal);
      }
      return f;
    } finally {
      open.plain -= 1;
    }
  };

  const clientLoop = async (arm: Arm, client: number) => {
    while (!startsOver.signal.aborted) {
      const run = pools[arm].pick();
      if (!run) {
        await sleep(50, startsOver.signal);
        continue;
      }
      run.followers += 1;
      try {
        const f = await (arm === 'service' ? followSse(client, run) : followPlain(client, run));
        if (f.completed) run.ended = true;
        follows.push(f);
      } finally {
        run.followers -= 1;
      }
    }
  };

  const concurrency: ClientsResult['concurrency'] = [];
  const sampler = setInterval(
    () => concurrency.push({ t: Date.now(), service: open.service, plain: open.plain }),
    1_000,
  );
  const loops = [
    ...Array.from({ length: clients }, (_, i) => clientLoop('service', i)),
    ...Array.from({ length: clients }, (_, i) => clientLoop('plain', i)),
  ];
  const go = new AbortController();
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line === 'go') go.abort();
  });
  // The parent went away: stop now.
  lines.on('close', () => (go.abort(), startsOver.abort(), hardStop.abort()));
  process.stdout.write('ready\n');
  await new Promise<void>((r) => go.signal.addEventListener('abort', () => r(), { once: true }));

  const t0 = Date.now();
  const total = seconds * 1000;
  const half = total / 2;
  const plainStart = async (at: number) => {
    const workflowId = `plain-${randomUUID()}`;
    const phase = at < half ? 'at_rate' : 'above_rate';
    const s0 = performance.now();
    try {
      await startAgentRun(client, { taskQueue, workflowId, input: plainInput, signer: plainSigner });
      starts.push({ arm: 'plain', at, phase, status: 201, ms: performance.now() - s0 });
      pools.plain.add(workflowId);
    } catch (err) {
      const code = (err as Error).message.slice(0, 100);
      starts.push({ arm: 'plain', at, phase, status: 0, code, ms: performance.now() - s0 });
    }
  };
  const serviceStart = async (at: number, phase: 'at_rate' | 'above_rate') => {
    const id = randomUUID();
    const sentAt = performance.timeOrigin + performance.now();
    const s0 = performance.now();
    try {
      const res = await postJson(`${url}/v1/runs`, { authorization: bearer, 'x-load-id': id }, body);
      const answer = res.body as { runId?: string; error?: { code: string } };
      starts.push({
        arm: 'service',
        at,
        phase,
        status: res.status,
        ms: performance.now() - s0,
        id,
        sentAt,
        ...(answer.error ? { code: answer.error.code } : {}),
      });
      if (res.status === 201 && answer.runId) {
        pools.service.add(answer.runId);
        // The plain arm: one start through the client for every start the service accepted.
        await plainStart(Date.now() - t0);
      }
    } catch (err) {
      const code = (err as Error).message.slice(0, 100);
      starts.push({ arm: 'service', at, phase, status: 0, code, ms: performance.now() - s0, id, sentAt });
    }
  };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // At the configured rate for the first half, at twice that rate for the second half.
  const times: { at: number; phase: 'at_rate' | 'above_rate' }[] = [];
  for (let at = 0; at < half; at += 1000 / rate) times.push({ at, phase: 'at_rate' });
  for (let at = half; at < total; at += 1000 / (2 * rate)) times.push({ at, phase: 'above_rate' });
  const pending: Promise<void>[] = [];
  for (const { at, phase } of times) {
    if (hardStop.signal.aborted) break;
    const wait = t0 + at - Date.now();
    if (wait > 0) await sleep(wait, hardStop.signal);
    pending.push(serviceStart(Date.now() - t0, phase));
  }
  await Promise.all(pending);
  const startPhaseMs = Date.now() - t0;
  loop.disable();
  const loopDelay = {
    p50: round1(loop.percentile(50) / 1e6),
    p99: round1(loop.percentile(99) / 1e6),
    max: round1(loop.max / 1e6),
  };
  process.stdout.write('starts-over\n');
  startsOver.abort();
  const grace = setTimeout(() => hardStop.abort(), graceMs);
  await Promise.all(loops);
  clearTimeout(grace);
  clearInterval(sampler);
  hardStop.abort();
  const result: ClientsResult = {
    starts,
    t0,
    startPhaseMs,
    loopDelay,
    follows,
    latencies,
    counters,
    concurrency,
  };
  writeFileSync(env('LOAD_OUT'), JSON.stringify(result));
  httpAgent.destroy();
  await connection.close();
  await store.close();
  process.stdout.write('done\n');
  lines.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
