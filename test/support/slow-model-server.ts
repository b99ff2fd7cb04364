import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the server answers one request: text pieces sent one every `intervalMs`, then the usage. */
export interface SlowAnswer {
  readonly pieces: readonly string[];
  readonly intervalMs: number;
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number };
}

/** One request the server received, and what became of its stream. */
export interface SlowRequest {
  readonly index: number;
  readonly body: Record<string, unknown>;
  /** Pieces written so far. */
  written: number;
  /** True once the whole answer (finish reason, usage, [DONE]) was written. */
  finished: boolean;
  /** True when the client went away before the answer ended. */
  aborted: boolean;
}

export interface SlowModelServer {
  /** Base URL for OPENAI_BASE_URL, e.g. `http://127.0.0.1:40123/v1`. */
  readonly baseUrl: string;
  readonly requests: readonly SlowRequest[];
  /** Resolve once request `index` (0-based) has written at least `pieces` text pieces. */
  streaming(index: number, pieces?: number, timeoutMs?: number): Promise<SlowRequest>;
  /** Resolve once request `index` ended, finished or aborted. */
  ended(index: number, timeoutMs?: number): Promise<SlowRequest>;
  close(): Promise<void>;
}

const CHUNK_BASE = {
  id: 'chatcmpl-slow',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'slow-model-1',
};

function sse(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

function choice(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return { ...CHUNK_BASE, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
}

/**
 * A real OpenAI-compatible HTTP server (Chat Completions, streaming SSE) on 127.0.0.1 that answers
 * slowly: `answerFor(index)` decides, per request, the text pieces, the pace and the usage it reports
 * at the end. It answers text only (no tool calls). Requests other than POST .../chat/completions get
 * a 404. A client that disconnects mid-stream is recorded as `aborted` and the stream stops.
 */
export async function startSlowModelServer(
  answerFor: (index: number) => SlowAnswer,
): Promise<SlowModelServer> {
  const requests: SlowRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const record: SlowRequest = {
        index: requests.length,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
        written: 0,
        finished: false,
        aborted: false,
      };
      requests.push(record);
      res.on('close', () => {
        if (!record.finished) record.aborted = true;
      });
      void stream(res, record, answerFor(record.index));
    });
  });

  async function stream(res: ServerResponse, record: SlowRequest, answer: SlowAnswer): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    sse(res, choice({ role: 'assistant', content: '' }));
    for (const piece of answer.pieces) {
      await new Promise((r) => setTimeout(r, answer.intervalMs));
      if (record.aborted || res.destroyed) return;
      sse(res, choice({ content: piece }));
      record.written += 1;
    }
    sse(res, choice({}, 'stop'));
    const { promptTokens, completionTokens } = answer.usage;
    sse(res, {
      ...CHUNK_BASE,
      choices: [],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
    sse(res, '[DONE]');
    record.finished = true;
    res.end();
  }

  async function until(
    check: () => SlowRequest | undefined,
    timeoutMs: number,
    what: string,
  ): Promise<SlowRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check();
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `slow model server: timed out waiting for ${what}; requests: ${JSON.stringify(requests.map(({ body: _b, ...r }) => r))}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    streaming: (index, pieces = 1, timeoutMs = 60_000) =>
      until(
        () => (requests[index] && requests[index].written >= pieces ? requests[index] : undefined),
        timeoutMs,
        `request ${index} to stream ${pieces} pieces`,
      ),
    ended: (index, timeoutMs = 60_000) =>
      until(
        () =>
          requests[index] && (requests[index].finished || requests[index].aborted)
            ? requests[index]
            : undefined,
        timeoutMs,
        `request ${index} to end`,
      ),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
