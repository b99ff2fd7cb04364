import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

/**
 * The tier's API keys: JWTs (ES256) the server's default claim mapper and authorizer check against a
 * JWKS this process serves (`global.authorization.jwtKeyProvider.keySourceURIs`). The signing key is
 * a file in the tier's folder so every test process can mint keys; tokens are passed to processes in
 * TEMPORAL_API_KEY only, never printed.
 */

const KEY_FILE = 'jwt-signing-key.pem';
const KID = 'harness-tier';

/** A namespace role of the default authorizer, or `system`: `temporal-system:admin` (every namespace, and the cluster). */
export type TierRole = 'read' | 'write' | 'admin' | 'system';

/** The permissions claim for `role` on `namespace`. */
export function permissionsFor(namespace: string, role: TierRole): string[] {
  return [role === 'system' ? 'temporal-system:admin' : `${namespace}:${role}`];
}

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/**
 * Create the signing key in `dir` and serve its public half as a JWKS on 127.0.0.1; returns the URL
 * and a close function.
 * @throws when the port cannot be bound.
 */
export async function serveJwks(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(join(dir, KEY_FILE), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const jwks = JSON.stringify({
    keys: [{ ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'ES256', use: 'sig' }],
  });
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(jwks);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * An API key for `subject` with `permissions` (`<namespace>:<role>`, `temporal-system:<role>` for the
 * cluster), valid for an hour. Undefined when the tier runs without an authorizer (no key in `dir`).
 */
export function mintApiKey(dir: string, subject: string, permissions: readonly string[]): string | undefined {
  const file = join(dir, KEY_FILE);
  if (!existsSync(file)) return undefined;
  const key: KeyObject = createPrivateKey(readFileSync(file));
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: KID }));
  const payload = b64url(JSON.stringify({ sub: subject, permissions, iat: now, exp: now + 3600 }));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${header}.${payload}.${b64url(signature)}`;
}
