import { describe, expect, it } from 'vitest';
import { signStart } from '../../../../src/client/decisions/sign-start.js';
import type { AgentRunInput } from '../../../../src/contract/run-input.js';
import { PrincipalDirectory } from '../../../../src/workflows/authz/principal-directory.js';
import { startInputDigest, verifyStartToken } from '../../../../src/workflows/authz/start-token.js';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';
import { TEST_KEYS, TEST_PRINCIPALS } from '../../../support/principals.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const directory = new PrincipalDirectory('sha256:x', TEST_PRINCIPALS);
const base: AgentRunInput = {
  schemaVersion: 1,
  profile: { name: 'refund.graph', version: 'v1' },
  task: { message: 'refund ORD-1001' },
};

function check(input: AgentRunInput, workflowId = 'wf-1', now = NOW) {
  return verifyStartToken(
    input.startToken!,
    directory,
    { workflowId, inputDigest: startInputDigest(input), tenantId: input.tenantId, userId: input.userId },
    now,
  );
}

describe('signed starts: who a run is for is verified, never typed', () => {
  it('the requester signs: the run is for them, with their kind and roles', () => {
    const input = signStart({ key: TEST_KEYS.customer, now: new Date(NOW) }, 'wf-1', {
      ...base,
      userId: 'C1001',
    });
    expect(check(input)).toMatchObject({
      ok: true,
      identity: { verified: true, userId: 'C1001', kind: 'customer', roles: [], keyId: 'c1001-1' },
    });
  });

  it('a delegate signs for the person it authenticated, in the run tenant', () => {
    const input = signStart(
      {
        key: TEST_KEYS.service,
        onBehalfOf: { sub: 'dana@acme', kind: 'customer', roles: [], ten: 'acme' },
        now: new Date(NOW),
      },
      'wf-1',
      { ...base, userId: 'dana@acme', tenantId: 'acme' },
    );
    expect(check(input)).toMatchObject({
      ok: true,
      identity: { verified: true, userId: 'dana@acme', tenantId: 'acme', via: 'run-service' },
    });
  });

  it('refuses a changed input, another workflow, another user, an expired token, a service signing as itself', () => {
    const signed = signStart({ key: TEST_KEYS.customer, now: new Date(NOW) }, 'wf-1', {
      ...base,
      userId: 'C1001',
    });
    const code = (r: ReturnType<typeof check>) => (r.ok ? 'ok' : r.code);
    expect(code(check({ ...signed, task: { message: 'refund ORD-9999' } }))).toBe('start.input_mismatch');
    expect(code(check(signed, 'wf-2'))).toBe('start.wrong_workflow');
    expect(code(check(signed, 'wf-1', NOW + 3_600_000))).toBe('start.token_expired');
    const other = signStart({ key: TEST_KEYS.customer, now: new Date(NOW) }, 'wf-1', {
      ...base,
      userId: 'C2002',
    });
    expect(code(check(other))).toBe('start.identity_mismatch');
    const asService = signStart({ key: TEST_KEYS.service, now: new Date(NOW) }, 'wf-1', base);
    expect(code(check(asService))).toBe('start.not_a_person');
    const tampered = { ...signed, startToken: `${signed.startToken.slice(0, -4)}AAAA` };
    expect(code(check(tampered))).toBe('start.bad_signature');
    // A delegate on a run without a tenant, or naming another tenant.
    const noTenant = signStart(
      {
        key: TEST_KEYS.service,
        onBehalfOf: { sub: 'dana', kind: 'customer', roles: [], ten: 'acme' },
        now: new Date(NOW),
      },
      'wf-1',
      { ...base, userId: 'dana' },
    );
    expect(code(check(noTenant))).toBe('decision.wrong_tenant');
  });
});

describe('rules policies read the verified requester', () => {
  const policy = new RulesPolicy({
    name: 'who',
    version: 'v1',
    rules: [
      {
        id: 'anonymous',
        when: { requester: { verified: false } },
        decision: 'deny',
        reasonCodes: ['requester.anonymous'],
      },
      { id: 'vip', when: { requester: { roles: ['vip'], tenants: ['acme'] } }, decision: 'allow' },
    ],
    customReasonCodes: ['requester.anonymous'],
    default: { decision: 'require_human' },
  });
  const decide = (subject: Record<string, unknown> | undefined) =>
    policy.evaluate({
      stage: 'dispatch',
      tool: { name: 't', version: 'v1', effect: 'read' },
      args: {},
      now: '2026-06-01T12:00:00Z',
      ...(subject ? { subject } : {}),
    }).decision;
  it('refuses anonymous runs, matches roles and tenants only when verified', () => {
    expect(decide({ verified: false })).toBe('deny');
    expect(decide({ verified: true, userId: 'u', tenantId: 'acme', roles: ['vip'] })).toBe('allow');
    expect(decide({ verified: true, userId: 'u', tenantId: 'globex', roles: ['vip'] })).toBe('require_human');
    // Claimed (a run from before identities): unverified too, never a role match.
    expect(decide({ userId: 'u', tenantId: 'acme', roles: ['vip'] })).toBe('deny');
  });
});
