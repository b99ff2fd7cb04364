import { Agent as HttpAgent, request as httpRequest } from 'node:http';

/** One keep-alive agent for the bench's HTTP calls; destroy it when the load ends. */
export const httpAgent = new HttpAgent({ keepAlive: true });

/** POST `body` as JSON (node:http, keep-alive, 30 s timeout); the answer's status and parsed body. */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent: httpAgent,
        timeout: 30_000,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length },
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
