import { describe, expect, it } from 'vitest';
import { signDecision } from '../../../../src/client/decisions/sign-decision.js';
import { base64UrlDecode, base64UrlEncode } from '../../../../src/workflows/authz/base64url.js';
import { DEFAULT_AUTHORIZATION } from '../../../../src/workflows/authz/authorization-rules.js';
import { DecisionAuthority, MAX_USED_TOKENS } from '../../../../src/workflows/authz/decision-authority.js';
import { PrincipalDirectory } from '../../../../src/workflows/authz/principal-directory.js';
import { principalsFrom } from '../../../../src/activities/authz/principal-registry.js';
import { TEST_KEYS, TEST_PRINCIPALS } from '../../../support/principals.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const action = {
  actionId: 'a1.demo.write.0123456789ab',
  tool: 'demo.write',
  version: 'v1',
  argsDigest: `sha256:${'a'.repeat(64)}`,
};
const target = {
  workflowId: 'wf-1',
  firstExecutionRunId: 'first-1',
  actionId: action.actionId,
  argsDigest: action.argsDigest,
};

function authority(registry = TEST_PRINCIPALS, requester?: string) {
  const a = new DecisionAuthority({
    workflowId: 'wf-1',
    firstExecutionRunId: 'first-1',
    requester,
    rules: DEFAULT_AUTHORIZATION,
  });
  a.useDirectory(new PrincipalDirectory('sha256:x', registry));
  return a;
}
const sign = (
  o: { key?: typeof TEST_KEYS.ops; now?: number; ttl?: number; payload?: Record<string, unknown> } = {},
) =>
  signDecision(
    o.key ?? TEST_KEYS.ops,
    target,
    'approve',
    o.payload ?? { actionId: action.actionId, actor: (o.key ?? TEST_KEYS.ops).principal },
    {
      now: new Date(o.now ?? NOW),
      ...(o.ttl ? { ttlSeconds: o.ttl } : {}),
    },
  );
const codeOf = (a: DecisionAuthority, payload: Record<string, unknown>) => {
  const v = a.check('approve', payload, action, NOW);
  return v.ok ? 'ok' : v.code;
};

describe('decision tokens', () => {
  it('base64url round-trips and refuses what is not base64url', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253]);
    expect(base64UrlDecode(base64UrlEncode(bytes))).toEqual(bytes);
    expect(base64UrlEncode(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    expect(base64UrlDecode('ab+/')).toBeUndefined();
    expect(base64UrlDecode('a')).toBeUndefined();
  });

  it('verifies a good token and refuses each broken one with its own code', () => {
    const a = authority();
    expect(codeOf(a, sign())).toBe('ok');
    const good = sign();
    const [h, c, s] = good.token.split('.');
    const flipped = `${s!.slice(0, 10)}${s![10] === 'A' ? 'B' : 'A'}${s!.slice(11)}`;
    expect(codeOf(a, { ...good, token: `${h}.${c}.${flipped}` })).toBe('decision.bad_signature');
    expect(codeOf(a, { ...good, token: 'not-a-token' })).toBe('decision.token_malformed');
    expect(codeOf(a, { ...good, token: `${h}.${Buffer.from('{"wf":1}').toString('base64url')}.${s}` })).toBe(
      'decision.token_malformed',
    );
    const { token: _t, ...unsigned } = good;
    expect(codeOf(a, unsigned)).toBe('decision.unsigned');
    expect(codeOf(a, sign({ now: NOW + 3_600_000 }))).toBe('decision.token_not_yet_valid');
    expect(codeOf(a, sign({ ttl: 2 * 24 * 3600 }))).toBe('decision.token_lifetime');
    expect(codeOf(a, sign({ now: NOW - 600_000, ttl: 60 }))).toBe('decision.token_expired');
    expect(codeOf(a, { ...good, actor: TEST_KEYS.lead.principal })).toBe('decision.payload_mismatch');
    expect(codeOf(a, sign({ payload: { actionId: action.actionId, actor: TEST_KEYS.lead.principal } }))).toBe(
      'decision.actor_mismatch',
    );
  });

  it('a key owned by someone else, a retired key, a spent token', () => {
    const stolen = { ...TEST_KEYS.ops, principal: TEST_KEYS.lead.principal };
    expect(codeOf(authority(), sign({ key: stolen }))).toBe('decision.principal_mismatch');
    const retired = principalsFrom(
      {
        ...TEST_PRINCIPALS,
        principals: TEST_PRINCIPALS.principals.map((p) =>
          p.id === TEST_KEYS.ops.principal
            ? { ...p, keys: p.keys.map((k) => ({ ...k, notAfter: '2026-05-01T00:00:00Z' })) }
            : p,
        ),
      },
      'test',
    ).registry;
    expect(codeOf(authority(retired), sign())).toBe('decision.key_retired');
    const a = authority();
    const payload = sign();
    const v = a.check('approve', payload, action, NOW);
    if (!v.ok) throw new Error(v.code);
    a.accept(v, 'approve', action, new Date(NOW).toISOString());
    expect(codeOf(a, payload)).toBe('decision.token_reused');
    expect(a.carry().usedTokens.length).toBeLessThanOrEqual(MAX_USED_TOKENS);
  });

  it('a registry that does not validate is refused with principals.invalid', () => {
    expect(() =>
      principalsFrom({ version: 1, principals: [{ id: 'x', kind: 'root', keys: [] }] }, 'bad'),
    ).toThrow(/principals\.0\.kind/);
    const dup = { version: 1, principals: [TEST_PRINCIPALS.principals[0], TEST_PRINCIPALS.principals[0]] };
    expect(() => principalsFrom(dup, 'dup')).toThrow(/duplicate principal/);
  });

  it('approvals of a call are used up when it is dispatched or rejected: an identical later call starts over', () => {
    const a = authority();
    for (const key of [TEST_KEYS.ops, TEST_KEYS.lead]) {
      const v = a.check('approve', sign({ key }), action, NOW);
      if (!v.ok) throw new Error(v.code);
      a.accept(v, 'approve', action, new Date(NOW).toISOString());
    }
    expect(a.approversOf(action)).toEqual([TEST_KEYS.ops.principal, TEST_KEYS.lead.principal]);
    a.consume(action);
    expect(a.approversOf(action)).toEqual([]);
    expect(a.carry().approvals).toEqual({});
  });

  describe('delegated decisions (the run service decides for the people it authenticated)', () => {
    const tenantAuthority = (requester?: string) => {
      const a = new DecisionAuthority({
        workflowId: 'wf-1',
        firstExecutionRunId: 'first-1',
        requester,
        tenantId: 'acme',
        rules: DEFAULT_AUTHORIZATION,
      });
      a.useDirectory(new PrincipalDirectory('sha256:x', TEST_PRINCIPALS));
      return a;
    };
    const onBehalf = (
      obo: { sub: string; kind: 'operator' | 'approver' | 'customer'; roles: string[]; ten?: string },
      o: { key?: typeof TEST_KEYS.service; actor?: string } = {},
    ) =>
      signDecision(
        o.key ?? TEST_KEYS.service,
        target,
        'approve',
        { actionId: action.actionId, actor: o.actor ?? obo.sub },
        { now: new Date(NOW), onBehalfOf: { ten: 'acme', ...obo } },
      );

    it('a delegate approves as the person it names, and the run records it as the signer', () => {
      const a = tenantAuthority();
      const v = a.check(
        'approve',
        onBehalf({ sub: 'dana@acme', kind: 'approver', roles: ['approver'] }),
        action,
        NOW,
      );
      expect(v).toMatchObject({
        ok: true,
        principal: { id: 'dana@acme', kind: 'approver' },
        via: 'run-service',
      });
      if (!v.ok) throw new Error('refused');
      a.accept(v, 'approve', action, '2026-06-01T12:00:00Z');
      expect(a.decisions.at(-1)).toMatchObject({ principal: 'dana@acme', via: 'run-service' });
    });

    it('refuses what the delegation does not cover, each with its own code', () => {
      const a = tenantAuthority('C1001');
      // Roles the delegation does not list are dropped: nothing left that approves.
      expect(codeOf(a, onBehalf({ sub: 'eve@acme', kind: 'approver', roles: ['root'] }))).toBe(
        'decision.role_missing',
      );
      // Only a service with a delegation may sign for others.
      expect(
        codeOf(
          a,
          onBehalf({ sub: 'eve@acme', kind: 'approver', roles: ['approver'] }, { key: TEST_KEYS.ops }),
        ),
      ).toBe('decision.not_a_delegate');
      // Authenticated in another tenant than the run's.
      expect(
        codeOf(a, onBehalf({ sub: 'dana@acme', kind: 'approver', roles: ['approver'], ten: 'globex' })),
      ).toBe('decision.wrong_tenant');
      // A registered principal keeps its registered kind: the customer never approves.
      expect(codeOf(a, onBehalf({ sub: 'C1001', kind: 'approver', roles: ['approver'] }))).toBe(
        'decision.customer_cannot_approve',
      );
      // The requester never approves, whoever signs for them.
      const b = tenantAuthority('dana@acme');
      expect(codeOf(b, onBehalf({ sub: 'dana@acme', kind: 'approver', roles: ['approver'] }))).toBe(
        'decision.requester_cannot_approve',
      );
      // The payload's actor is the person, not the delegate.
      expect(
        codeOf(
          a,
          onBehalf({ sub: 'dana@acme', kind: 'approver', roles: ['approver'] }, { actor: 'run-service' }),
        ),
      ).toBe('decision.actor_mismatch');
      // A delegate never decides for another service.
      expect(codeOf(a, onBehalf({ sub: 'run-service', kind: 'operator', roles: ['operator'] }))).toBe(
        'decision.not_a_delegate',
      );
    });

    it('a delegation is only valid on a service principal', () => {
      const bad = structuredClone(TEST_PRINCIPALS) as { principals: Record<string, unknown>[] };
      bad.principals[0]!.delegation = { roles: ['approver'] };
      expect(() => principalsFrom(bad, 'bad')).toThrow(/delegation/);
    });
  });
});
