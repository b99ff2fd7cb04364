import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf, type DecisionKey } from '../../src/client/decisions/decision-key.js';
import { sendDecision, signedPayload } from '../../src/client/decisions/send-decision.js';
import type { PrincipalRegistry } from '../../src/contract/principals.js';
import type { OnBehalfOf } from '../../src/client/decisions/sign-decision.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { waitForPause } from '../faults/fault-rig.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';
import { TEST_KEYS, TEST_PRINCIPALS } from '../support/principals.js';
import { recordHistory } from '../../src/worker/history-fixtures.js';

function newKey(principal: string): DecisionKey {
  return {
    principal,
    keyId: `${principal.replace(/[^A-Za-z0-9._-]/g, '-')}-1`,
    privateKey: generateKeyPairSync('ed25519').privateKey,
  };
}
const entry = (k: DecisionKey) => ({
  id: k.keyId,
  alg: 'Ed25519' as const,
  publicKey: publicKeyOf(k.privateKey),
});

/** A customer portal: a delegate for customers only. */
const PORTAL = newKey('customer-portal');
/** A refund approver of another tenant only. */
const GLOBEX_OPS = newKey('ops@globex');

const REGISTRY: PrincipalRegistry = {
  version: 1,
  principals: [
    ...TEST_PRINCIPALS.principals,
    {
      id: PORTAL.principal,
      kind: 'service',
      roles: [],
      keys: [entry(PORTAL)],
      delegation: { roles: [], kinds: ['customer'] },
    },
    {
      id: GLOBEX_OPS.principal,
      kind: 'approver',
      roles: ['approver', 'refund_approver'],
      keys: [entry(GLOBEX_OPS)],
      tenants: ['globex'],
    },
  ],
};

/**
 * Delegation and tenant scope on the real server (issue 35): a delegated decision is bounded by its
 * delegation whatever the registry says of the person, a run without a tenant takes no delegated
 * decision, and a principal limited to tenants decides only their runs. Each refusal pays nothing,
 * and the run still takes the decision that is allowed.
 */
describe('delegated and tenant-scoped decisions', () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('delegation-scope', { principals: REGISTRY });
  });
  afterAll(async () => {
    await h?.close();
  });

  const approveAs = (
    handle: Parameters<typeof sendDecision>[0],
    view: RunView,
    key: DecisionKey,
    obo?: OnBehalfOf,
  ) =>
    sendDecision(
      handle,
      'approve',
      signedPayload(key, view, 'approve', {}, view.pendingAction!, obo ? { onBehalfOf: obo } : {}),
    );

  it('a customer-only delegate cannot approve as a registered approver; another tenant’s approver cannot either', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      tenantId: 'acme',
      userId: 'C1001',
    });
    const view = await waitForPause(handle, 'awaiting_confirmation');
    const lead = TEST_KEYS.lead.principal;
    // Vouched as a customer: the registry lists an approver under that id, the delegation wins.
    expect(
      await approveAs(handle, view, PORTAL, { sub: lead, kind: 'customer', roles: [], ten: 'acme' }),
    ).toMatchObject({
      accepted: false,
      code: 'decision.kind_mismatch',
    });
    // Vouched as an approver: this delegate may not vouch for approvers at all.
    expect(
      await approveAs(handle, view, PORTAL, {
        sub: lead,
        kind: 'approver',
        roles: ['refund_approver'],
        ten: 'acme',
      }),
    ).toMatchObject({ accepted: false, code: 'decision.not_a_delegate' });
    // Signed by globex's approver on acme's run.
    expect(await approveAs(handle, view, GLOBEX_OPS)).toMatchObject({
      accepted: false,
      code: 'decision.wrong_tenant',
    });
    // A full delegate vouching for a registered approver with fewer roles: only the vouched ones count.
    expect(
      await approveAs(handle, view, TEST_KEYS.service, {
        sub: lead,
        kind: 'approver',
        roles: ['viewer'],
        ten: 'acme',
      }),
    ).toMatchObject({ accepted: false, code: 'decision.role_missing' });
    expect((await handle.query<RunView>('state')).status).toBe('awaiting_confirmation');
    expect(await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/4`)).toBeUndefined();

    // The allowed decision is still taken.
    expect(await decide(handle, 'approve', {}, view, { via: 'update' })).toMatchObject({ accepted: true });
    const result = (await handle.result()) as { status: string };
    expect(result.status).toBe('succeeded');
    // HARNESS_RECORD_HISTORIES=<dir> keeps it as a replay fixture: a signed start, scoped decisions.
    const dir = process.env.HARNESS_RECORD_HISTORIES;
    if (dir) await recordHistory(h.t.client, handle.workflowId, dir, 'refund-graph-trust-scope-v1');
  });

  it('a run without a tenant takes no delegated decision, however the delegate vouches', async () => {
    const handle = await h.start({
      task: { message: 'refund ORD-1001 please', customerId: 'C1001' },
      userId: 'C1001',
    });
    const view = await waitForPause(handle, 'awaiting_confirmation');
    for (const ten of ['acme', undefined]) {
      const obo = {
        sub: 'dana@acme',
        kind: 'approver' as const,
        roles: ['refund_approver'],
        ...(ten ? { ten } : {}),
      };
      expect(await approveAs(handle, view, TEST_KEYS.service, obo)).toMatchObject({
        accepted: false,
        code: 'decision.wrong_tenant',
      });
    }
    expect((await handle.query<RunView>('state')).status).toBe('awaiting_confirmation');
    expect(await h.composition.refundStore.findRefundByKey(`${handle.workflowId}/4`)).toBeUndefined();
    await handle.terminate('test done');
  });
});
