import {
  startFakeServer,
  startSse,
  writeSse,
  type FakeServer,
} from '../unit/activities/model/support/fake-http-server.js';
import { chunk, done, usageChunk } from '../unit/activities/model/support/openai-wire.js';

/** What the server streams for one request. */
export interface GatedAnswer {
  /**
   * Text pieces streamed as soon as the request arrives; without any, the request is held without a
   * byte of response (not even its headers) until the gate opens.
   */
  readonly early?: readonly string[];
  /** Text pieces streamed once the gate is open, then the finish reason, the usage and `[DONE]`. */
  readonly pieces: readonly string[];
}

/** One request the server received, and what became of it. */
export interface GatedRequest {
  readonly index: number;
  readonly body: Record<string, unknown>;
  /** True once the whole answer was written. */
  finished: boolean;
  /** True when the client went away before the answer ended. */
  aborted: boolean;
}

export interface GatedModelServer {
  /** Base URL for a routes file's `baseUrl`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly baseUrl: string;
  readonly requests: readonly GatedRequest[];
  /** Resolves once `count` requests have arrived. @throws when they have not within `timeoutMs`. */
  arrived(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once request `index` (0-based) ended, finished or aborted. @throws after `timeoutMs`. */
  ended(index: number, timeoutMs?: number): Promise<GatedRequest>;
  /** Opens the gate: held requests, and every later one, get the rest of their answer. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A real OpenAI-compatible HTTP server (Chat Completions, streaming SSE) on 127.0.0.1 whose answers
 * wait behind a gate the test opens: `answerFor(index)` decides, per request, what is streamed at
 * once and what only after {@link GatedModelServer.release}; every answer reports `usage`. A client
 * that disconnects while held is recorded as `aborted` and gets nothing more. For the fault drills
 * that kill a worker while its model call is in flight (test/faults/fast-model-kill.test.ts).
 */
export async function startGatedModelServer(
  answerFor: (index: number) => GatedAnswer,
  usage: { readonly inputTokens: number; readonly outputTokens: number },
): Promise<GatedModelServer> {
  const server: FakeServer = await startFakeServer();
  const requests: GatedRequest[] = [];
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));

  server.handle(async (req, res, { closed }) => {
    const record: GatedRequest = { index: requests.length, body: req.body, finished: false, aborted: false };
    requests.push(record);
    const gone = closed.then(() => {
      if (!record.finished) record.aborted = true;
      return true;
    });
    const answer = answerFor(record.index);
    const early = answer.early ?? [];
    if (early.length > 0) {
      startSse(res);
      writeSse(res, chunk({ role: 'assistant', content: '' }));
      for (const piece of early) writeSse(res, chunk({ content: piece }));
    }
    if (await Promise.race([gate.then(() => false), gone])) return;
    if (res.destroyed) return;
    if (early.length === 0) {
      startSse(res);
      writeSse(res, chunk({ role: 'assistant', content: '' }));
    }
    for (const piece of answer.pieces) writeSse(res, chunk({ content: piece }));
    writeSse(res, chunk({}, 'stop'));
    writeSse(res, usageChunk(usage.inputTokens, usage.outputTokens));
    record.finished = true;
    done(res);
  });

  async function until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check();
      if (found !== undefined) return found;
      if (Date.now() > deadline)
        throw new Error(
          `gated model server: timed out waiting for ${what}; requests: ${JSON.stringify(requests.map(({ body: _b, ...r }) => r))}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    arrived: async (count, timeoutMs = 60_000) => {
      await until(() => (requests.length >= count ? true : undefined), timeoutMs, `${count} request(s)`);
    },
    ended: (index, timeoutMs = 60_000) =>
      until(
        () => {
          const r = requests[index];
          return r && (r.finished || r.aborted) ? r : undefined;
        },
        timeoutMs,
        `request ${index} to end`,
      ),
    release: () => open(),
    close: async () => {
      open();
      await server.close();
    },
  };
}
