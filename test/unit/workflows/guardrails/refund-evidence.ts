import type { Artifact } from '../../../../src/contract/artifact.js';
import type { EvidenceInvocation } from '../../../../src/workflows/guardrails/index.js';

/** Evidence of a refund run as the runner records it: refund.create (observed) then refund.verify (verified). */
export const observedRefund: Artifact = {
  id: 'run-1:2:refund',
  type: 'refund',
  schemaVersion: '1',
  provenance: 'observed',
  externalId: 'RF-1',
  data: {
    id: 'RF-1',
    orderId: 'O-1001',
    amountCents: 12_000,
    currency: 'CNY',
    status: 'succeeded',
    createdAt: '2026-07-15T08:00:00.000Z',
  },
};

export function verification(status: 'passed' | 'failed'): Artifact {
  return {
    id: 'run-1:3:refund.verification',
    type: 'refund.verification',
    schemaVersion: '1',
    provenance: 'verified',
    verification: { subject: { externalId: 'RF-1' }, status },
    data: { refundId: 'RF-1', checks: [] },
  };
}

export const createInvocation: EvidenceInvocation = {
  seq: 2,
  status: 'succeeded',
  artifactIds: [observedRefund.id],
  externalId: 'RF-1',
};
export const verifyInvocation: EvidenceInvocation = {
  seq: 3,
  status: 'succeeded',
  artifactIds: ['run-1:3:refund.verification'],
};

/** A refund observed and verified (passed). */
export const verifiedRefundRun = {
  artifacts: [observedRefund, verification('passed')],
  invocations: [createInvocation, verifyInvocation],
};

/** A refund observed, never verified. */
export const observedOnlyRun = { artifacts: [observedRefund], invocations: [createInvocation] };

/** Nothing done. */
export const emptyRun = { artifacts: [] as Artifact[], invocations: [] as EvidenceInvocation[] };
