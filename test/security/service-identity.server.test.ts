import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeAgentRun } from '../../src/workflows/temporal/agent-run-definition.js';
import { createRunService } from '../../src/service/run-service.js';
import { parseServiceConfig } from '../../src/service/service-config.js';
import { showcaseDefinition } from '../../apps/showcase/workflow/definition.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { TEST_KEYS } from '../support/principals.js';
import {
  createTokenIssuer,
  serviceApi,
  startTestService,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type TokenIssuer,
} from '../support/run-service.js';

/**
 * The run service's identity and page hardening (docs/api.md, "Identity", "The approval inbox";
 * docs/security.md, "HTTP"), against the real dev server: no start without `iss` and `aud` outside
 * dev mode, tokens of another issuer or audience refused, and the inbox sent with a strict CSP that
 * no page may frame.
 */
describe('run service identity and inbox headers', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  let issuer: TokenIssuer;
  let service: { app: FastifyInstance; url: string };
  const api = serviceApi(() => service.url);
  const tenant = `ident${Date.now().toString(36)}`;

  beforeAll(async () => {
    h = await createHarnessFixture('security-identity');
    issuer = await createTokenIssuer();
    service = await startTestService(h, issuer);
  });
  afterAll(async () => {
    await service?.app.close();
    await h?.close();
  });

  const serviceWith = (identity: Record<string, unknown>, dev?: boolean) =>
    createRunService({
      client: h.t.client,
      store: h.composition.store,
      composition: composeAgentRun(showcaseDefinition),
      taskQueue: h.taskQueue,
      config: parseServiceConfig({
        identity: { jwksFile: 'unused', ...identity },
        delegateKeyFile: 'unused',
      }),
      jwks: issuer.jwks,
      delegateKey: TEST_KEYS.service,
      ...(dev !== undefined ? { dev } : {}),
    });

  it('refuses to start without iss and aud outside dev mode, with a clear error', async () => {
    expect(() => serviceWith({})).toThrow(/identity\.issuer and identity\.audience are required/);
    expect(() => serviceWith({ issuer: TEST_ISSUER })).toThrow(/identity\.audience is required/);
    expect(() => serviceWith({ audience: TEST_AUDIENCE })).toThrow(/identity\.issuer is required/);
    try {
      serviceWith({});
    } catch (err) {
      expect(err).toMatchObject({ code: 'service.config_invalid' });
    }
    // Dev mode (`harness serve --dev`) may leave them out.
    const dev = serviceWith({}, true);
    await dev.close();
  });

  it('refuses tokens of another issuer or audience, or without them (401)', async () => {
    const claims = { sub: 'ops@shop', tenant, roles: ['operator'], kind: 'operator' };
    expect((await api(await issuer.token(claims), 'GET', '/v1/runs')).status).toBe(200);
    for (const o of [
      { iss: 'https://evil.example/' },
      { aud: 'another-service' },
      { iss: null },
      { aud: null },
    ]) {
      const r = await api(await issuer.token(claims, o), 'GET', '/v1/runs');
      expect(r, JSON.stringify(o)).toMatchObject({
        status: 401,
        body: { error: { code: 'auth.invalid_token' } },
      });
    }
  });

  it('sends the inbox with a strict Content-Security-Policy and frame-ancestors none', async () => {
    const res = await fetch(`${service.url}/inbox`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name = '', ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // The page's one inline script and style are allowed by their hashes, and nothing else is.
    const html = await res.text();
    const hashOf = (tag: string) => {
      const body = html.split(`<${tag}>`)[1]!.split(`</${tag}>`)[0]!;
      return `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
    };
    expect(directives.get('script-src')).toEqual([hashOf('script')]);
    expect(directives.get('style-src')).toEqual([hashOf('style')]);
  });
});
