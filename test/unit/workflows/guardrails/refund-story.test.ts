import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Artifact } from '../../../../src/contract/artifact.js';
import type { RefundStore } from '../../../../apps/refund/business/refund-store.js';
import { SEED_ORDERS } from '../../../../apps/refund/business/seed-data.js';
import { createRefundTools, type RefundTool } from '../../../../apps/refund/tools/refund-tools.js';
import {
  OutputReasonCodes,
  checkOutput,
  type EvidenceInvocation,
} from '../../../../src/workflows/guardrails/index.js';
import {
  makeCall,
  recordingContext,
  seededStore,
  tempDir,
} from '../../../apps/refund/refund-test-support.js';

/**
 * The output guardrail on evidence the real refund tools record (a real SQLite business store), with
 * the response the refund graph composes (`compose_response` in apps/refund/graph/refund-nodes.ts).
 */
describe('output guardrail on the refund story', () => {
  let cleanup: () => void;
  let store: RefundStore;
  let tools: Map<string, RefundTool>;
  let artifacts: Artifact[];
  let invocations: EvidenceInvocation[];

  const invoke = async (name: string, args: Record<string, unknown>, seq: number) => {
    const execution = await tools.get(name)!.executor.execute(recordingContext(), makeCall(name, args, seq));
    artifacts.push(...(execution.artifacts ?? []));
    invocations.push({
      seq,
      status: 'succeeded',
      artifactIds: (execution.artifacts ?? []).map((a) => a.id),
      ...(execution.externalId === undefined ? {} : { externalId: execution.externalId }),
    });
    return execution;
  };
  const composed = (refundId: string) => ({
    outcome: 'refunded',
    message: `Your refund ${refundId} of 129.00 CNY for order ORD-1001 has been created and verified.`,
    refundId,
    orderId: 'ORD-1001',
  });

  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    store = seededStore(dir);
    tools = new Map(createRefundTools(store).map((t) => [t.definition.name, t]));
    artifacts = [];
    invocations = [];
  });
  afterEach(() => {
    store.close();
    cleanup();
  });

  it('passes the composed response once refund.verify confirmed the refund, and masks the phone', async () => {
    await invoke('order.read', { orderId: SEED_ORDERS.paidUnshippedOver72h }, 1);
    const created = await invoke(
      'refund.create',
      { orderId: 'ORD-1001', amountCents: 12_900, reason: 'late' },
      2,
    );
    const refundId = created.externalId!;
    const obligations = ['verify.order_owner', 'mask.phone'];
    expect(checkOutput({ output: composed(refundId), artifacts, invocations, obligations })).toMatchObject({
      verdict: 'block',
      reasonCodes: [OutputReasonCodes.unsupportedClaim],
    });
    await invoke('refund.verify', { refundId, expectedOrderId: 'ORD-1001', expectedAmountCents: 12_900 }, 3);
    expect(checkOutput({ output: composed(refundId), artifacts, invocations, obligations })).toMatchObject({
      verdict: 'pass',
      output: composed(refundId),
    });
    const withPhone = { ...composed(refundId), message: 'We will text 13800001001 when the money arrives.' };
    expect(checkOutput({ output: withPhone, artifacts, invocations, obligations }).output).toMatchObject({
      message: 'We will text 138****1001 when the money arrives.',
    });
    const overstated = composed(refundId);
    overstated.message = overstated.message.replace('129.00', '1290.00');
    expect(checkOutput({ output: overstated, artifacts, invocations, obligations }).reasonCodes).toEqual([
      OutputReasonCodes.amountOverApproved,
    ]);
  });

  it('the refusal and not-confirmed responses pass without any refund evidence', () => {
    for (const message of [
      'The refund for order ORD-1001 was not confirmed, so nothing was refunded.',
      'We cannot refund order ORD-1003: not eligible.',
    ]) {
      expect(checkOutput({ output: { outcome: 'refused', message }, artifacts, invocations }).verdict).toBe(
        'pass',
      );
    }
  });
});
