import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actionWithVerification } from '../../../src/workflows/completion/action-with-verification.js';
import type { InvocationRecord } from '../../../src/workflows/completion/completion.js';
import type { Artifact } from '../../../src/contract/artifact.js';
import type { ToolExecution } from '../../../src/contract/tool.js';
import type { RefundStore } from '../../../apps/refund/business/refund-store.js';
import { SEED_ORDERS } from '../../../apps/refund/business/seed-data.js';
import { createRefundTools } from '../../../apps/refund/tools/refund-tools.js';
import type { RefundTool } from '../../../apps/refund/tools/refund-tools.js';
import { makeCall, recordingContext, seededStore, tempDir } from './refund-test-support.js';

const PARAMS = { actionTool: 'refund.create', actionType: 'refund', verificationType: 'refund.verification' };

describe('refund tool evidence under action_with_verification/v1', () => {
  let cleanup: () => void;
  let store: RefundStore;
  let tools: Map<string, RefundTool>;
  const artifacts: Artifact[] = [];
  const invocations: InvocationRecord[] = [];

  /** Run a tool and record its evidence as the runner would. */
  const invoke = async (name: string, args: Record<string, unknown>, seq: number): Promise<ToolExecution> => {
    const tool = tools.get(name)!;
    const execution = await tool.executor.execute(recordingContext(), makeCall(name, args, seq));
    artifacts.push(...(execution.artifacts ?? []));
    invocations.push({
      seq,
      tool: name,
      version: 'v1',
      effect: tool.definition.effect,
      status: 'succeeded',
      ...(execution.externalId === undefined ? {} : { externalId: execution.externalId }),
      artifactIds: (execution.artifacts ?? []).map((a) => a.id),
    });
    return execution;
  };
  const verdict = () =>
    actionWithVerification.evaluate({ finalOutput: 'refunded', artifacts, invocations, params: PARAMS });

  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    store = seededStore(dir);
    tools = new Map(createRefundTools(store).map((t) => [t.definition.name, t]));
    artifacts.length = 0;
    invocations.length = 0;
  });
  afterEach(() => {
    store.close();
    cleanup();
  });

  it('passes when refund.verify confirms the created refund', async () => {
    await invoke('order.read', { orderId: SEED_ORDERS.paidUnshippedOver72h }, 1);
    const created = await invoke(
      'refund.create',
      { orderId: 'ORD-1001', amountCents: 12_900, reason: 'late' },
      2,
    );
    expect(verdict().passed).toBe(false);
    await invoke(
      'refund.verify',
      { refundId: created.externalId, expectedOrderId: 'ORD-1001', expectedAmountCents: 12_900 },
      3,
    );
    expect(verdict()).toMatchObject({
      passed: true,
      evidenceArtifactIds: expect.arrayContaining(['run-test/2/refund']) as unknown,
    });
  });

  it('fails when the verification of the refund failed', async () => {
    const created = await invoke(
      'refund.create',
      { orderId: 'ORD-1001', amountCents: 12_900, reason: 'late' },
      1,
    );
    await invoke('refund.verify', { refundId: created.externalId, expectedAmountCents: 100 }, 2);
    expect(verdict().passed).toBe(false);
  });
});
