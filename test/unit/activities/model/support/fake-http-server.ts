import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

export type FakeHandler = (
  req: RecordedRequest,
  res: ServerResponse,
  events: { closed: Promise<void> },
) => void | Promise<void>;

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  /** Replaces the handler for the following requests. */
  handle(handler: FakeHandler): void;
  /** Resolves when the client closed the connection of the last request before the response ended. */
  lastClientAbort(): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 with a random port, speaking whatever the handler writes. */
export async function startFakeServer(): Promise<FakeServer> {
  let handler: FakeHandler = (_req, res) => {
    res.statusCode = 500;
    res.end('no handler');
  };
  const requests: RecordedRequest[] = [];
  let abortWaiter: Promise<void> = Promise.resolve();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>),
      };
      requests.push(recorded);
      const closed = new Promise<void>((resolve) => {
        res.on('close', () => {
          if (!res.writableFinished) resolve();
        });
      });
      abortWaiter = closed;
      void Promise.resolve(handler(recorded, res, { closed })).catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    handle(h) {
      handler = h;
    },
    lastClientAbort: () => abortWaiter,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

/** Writes one SSE message (`event:` line only when `event` is given). */
export function writeSse(res: ServerResponse, data: unknown, event?: string): void {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`);
}

/** A JSON error response with optional extra headers. */
export function jsonError(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const tick = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));
