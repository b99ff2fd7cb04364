import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { decide } from '../support/decisions.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';
import { TEST_KEYS } from '../support/principals.js';

const LARGE = 'ORD-1005'; // 6800.00 CNY, customer C1001: over the auto limit, a confirmation at dispatch
const CUSTOMER = TEST_KEYS.customer.principal;

const pendingIs = (decisionType: string) => (v: RunView) =>
  v.pendingAction?.kind === 'confirmation' && v.humanRequest?.decisionType === decisionType;

/**
 * Versioned facts (agent-run-versioned-facts-v1): a person deciding sees verified facts as versioned
 * refs `fact://<name>@v<version>`, never their values; `fact.recorded` names the version and the
 * observation (invocation) that established it; the state view lists each fact's version.
 */
describe('versioned fact refs and fact versions (real server)', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  beforeAll(async () => {
    h = await createHarnessFixture('versioned-facts');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the dispatch confirmation cites fact://order.owner_verified@v1, established by the order read', async () => {
    const handle = await h.start({
      task: { message: `refund ${LARGE} please, it never shipped`, customerId: CUSTOMER },
      userId: CUSTOMER,
    });
    const graph = await waitForState(handle, pendingIs('refund_confirmation'), 60_000);
    await decide(handle, 'approve', {}, graph, { via: 'update' });
    const dispatch = await waitForState(handle, pendingIs('refund.amount_over_auto_limit'), 60_000);
    const refs = dispatch.humanRequest!.verifiedFacts;
    expect(refs).toContain('fact://order.owner_verified@v1');
    for (const ref of refs) expect(ref).toMatch(/^fact:\/\/[a-z][a-z0-9_.]*@v[1-9]\d*$/);

    const recorded = (await h.composition.store.listEvents(handle.workflowId))
      .filter((e) => e.type === 'fact.recorded')
      .map((e) => e.data);
    const owner = recorded.find((d) => d['name'] === 'order.owner_verified')!;
    expect(owner).toMatchObject({ version: 1, ref: 'fact://order.owner_verified@v1' });
    const observation = owner['observation'] as { seq: number; tool: string };
    expect(observation.tool).toBe('order.read');
    const read = dispatch.invocations.find((i) => i.seq === observation.seq);
    expect(read).toMatchObject({ tool: 'order.read', status: 'succeeded' });
    expect(dispatch.factVersions?.['order.owner_verified']).toEqual({
      version: 1,
      observationSeq: observation.seq,
    });
    await handle.terminate('test done');
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-versioned-facts-v1');
  });
});
