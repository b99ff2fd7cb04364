import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { isHarnessError } from '../contract/errors.js';
import { payloadFromJson, PayloadsBodySchema, payloadToJson } from './payload-json.js';

/** The port of `harness codec-server` unless told otherwise (the Temporal samples use it too). */
export const DEFAULT_CODEC_SERVER_PORT = 8888;
/** Largest request body read (the UI sends a page of events at a time). */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface CodecServerOptions {
  readonly codec: PayloadCodec;
  /** Interface to bind (default 127.0.0.1: only this host can reach it). */
  readonly host?: string;
  /** Port (default 8888; 0 picks a free one). */
  readonly port?: number;
  /**
   * Browser origins allowed to call it (CORS), e.g. `http://127.0.0.1:8233`, the Web UI. A request from
   * any other origin is refused with 403 before anything is decoded. Requests without an `Origin`
   * (the Temporal CLI's `--codec-endpoint`, curl) are not browser requests and are served.
   */
  readonly origins: readonly string[];
  /** When set, every request needs `Authorization: Bearer <token>` (401 otherwise). */
  readonly token?: string;
  readonly maxBodyBytes?: number;
  /** One line per request (no payload content): the decode audit trail. Default: none. */
  readonly log?: (line: string) => void;
}

export interface CodecServer {
  /** `http://host:port`: the codec endpoint for the Web UI (`--ui-codec-endpoint`) and the CLI. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        reject(new HttpError(413, `request body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The Temporal codec server protocol over node:http (docs/security.md, `harness codec-server`):
 * `POST /decode` and `POST /encode` with `{ "payloads": [...] }` (proto3 JSON) answer
 * `{ "payloads": [...] }`. The Web UI calls it from the browser of whoever looks at a run, so the
 * payloads it shows decrypted are visible to everyone who can open the UI and reach this server:
 * bind it where only those people reach it, list the UI's origin, and set a token for non-browser use.
 *
 * A payload that does not decode (unknown key id, altered) is answered unchanged (still encrypted) so
 * the rest of the page reads; the log line names the error code and key id.
 * @throws the listen error (port taken) from the returned promise.
 */
export async function startCodecServer(o: CodecServerOptions): Promise<CodecServer> {
  const origins = new Set(o.origins.map((x) => x.replace(/\/+$/, '')));
  const limit = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const expected = o.token !== undefined ? digest(`Bearer ${o.token}`) : undefined;
  const log = o.log ?? (() => undefined);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<string> {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!origins.has(origin)) throw new HttpError(403, `origin ${origin} is not allowed`);
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'Origin');
    }
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    const op = path === '/decode' ? 'decode' : path === '/encode' ? 'encode' : undefined;
    if (op === undefined) throw new HttpError(404, 'not found: POST /decode or POST /encode');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers':
          req.headers['access-control-request-headers'] ?? 'content-type, x-namespace, authorization',
        'access-control-max-age': '600',
      });
      res.end();
      return 'preflight';
    }
    if (req.method !== 'POST') throw new HttpError(405, 'use POST');
    if (expected) {
      const given = digest(req.headers.authorization ?? '');
      if (!timingSafeEqual(given, expected))
        throw new HttpError(401, 'missing or wrong Authorization bearer token');
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, limit));
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new HttpError(400, 'the body is not JSON');
    }
    const parsed = PayloadsBodySchema.safeParse(body);
    if (!parsed.success)
      throw new HttpError(400, 'expected {"payloads":[{"metadata":{...},"data":"<base64>"}]}');
    const payloads = parsed.data.payloads.map(payloadFromJson);
    const notes: string[] = [];
    let out: Payload[];
    if (op === 'encode') {
      out = await o.codec.encode(payloads);
    } else {
      out = await Promise.all(
        payloads.map(async (p) => {
          try {
            return (await o.codec.decode([p]))[0]!;
          } catch (err) {
            const keyId = isHarnessError(err) ? err.details.keyId : undefined;
            notes.push(
              `${isHarnessError(err) ? err.code : 'error'}${typeof keyId === 'string' ? ` ${keyId}` : ''}`,
            );
            return p;
          }
        }),
      );
    }
    send(res, 200, { payloads: out.map(payloadToJson) });
    const ns = req.headers['x-namespace'];
    return `${op} ${payloads.length} payloads${typeof ns === 'string' ? ` namespace=${ns}` : ''}${notes.length ? ` (${notes.length} not decoded: ${[...new Set(notes)].join(', ')})` : ''}`;
  }

  const server = createServer((req, res) => {
    const from = `${req.socket.remoteAddress ?? '?'}${req.headers.origin ? ` origin=${req.headers.origin}` : ''}`;
    handle(req, res).then(
      (what) => log(`${new Date().toISOString()} ${from} ${what} -> ${res.statusCode}`),
      (err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        const message = err instanceof HttpError ? err.message : 'internal error';
        if (!res.headersSent) send(res, status, { error: message });
        else res.end();
        log(`${new Date().toISOString()} ${from} ${req.method} ${req.url} -> ${status} ${message}`);
      },
    );
  });
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? DEFAULT_CODEC_SERVER_PORT, o.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
