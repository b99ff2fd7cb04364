import { Agent as HttpAgent, request as httpRequest } from 'node:http';

/** One keep-alive agent for the bench's HTTP calls; destroy it when the load ends. */
export const httpAgent = new HttpAgent({ keepAlive: true });

/** POST `body` as JSON (node:http, keep-alive, 30 s timeout); the answer's status and parsed body. */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  return requestJson('POST', url, headers, body);
}

/** GET a JSON answer (as {@link postJson}). */
export function getJson(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  return requestJson('GET', url, headers, undefined);
}

function requestJson(
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      url,
      {
        method,
        agent: httpAgent,
        timeout: 30_000,
        headers: payload
          ? { ...headers, 'content-type': 'application/json', 'content-length': payload.length }
          : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) });
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out after 30 s')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A timed request: its duration (ms), status, the `runId` and error `code` of its body, and the body. */
export interface Timed {
  readonly ms: number;
  readonly status: number;
  readonly runId?: string | undefined;
  readonly code?: string;
  readonly body?: unknown;
}

/**
 * POST (or GET, without `body`) and time it; a request that fails (the 30 s timeout, a refused
 * connection) is status 0, code `client.error`. Never throws.
 */
export async function timedPost(
  url: string,
  bearer: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Timed> {
  const t0 = performance.now();
  try {
    const h = { authorization: bearer, ...headers };
    const r = body === undefined ? await getJson(url, h) : await postJson(url, h, body);
    const b = r.body as { runId?: string; error?: { code?: string } };
    return {
      ms: performance.now() - t0,
      status: r.status,
      runId: b.runId,
      ...(b.error?.code ? { code: b.error.code } : {}),
      body: r.body,
    };
  } catch {
    return { ms: performance.now() - t0, status: 0, runId: undefined, code: 'client.error' };
  }
}
