import type { Artifact } from '../../../../src/contract/artifact.js';
import type {
  InvocationIntent,
  InvocationResult,
  StoredEvent,
} from '../../../../src/activities/store/index.js';
import { isHarnessError } from '../../../../src/contract/errors.js';
import { expect } from 'vitest';

/** Pinned versions of a refund run, as its `run.created` event names them. */
export const RUN_VERSIONS = {
  profile: 'refund.graph@v1',
  policy: 'refund.rules@v1',
  toolRegistryDigest: 'sha256:r',
  modelRoute: 'scripted/refund',
  configDigest: 'sha256:c',
};

let counter = 0;
/** A run id no other test uses. */
export function newRunId(prefix = 'run'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export function intent(runId: string, seq: number, over: Partial<InvocationIntent> = {}): InvocationIntent {
  return {
    runId,
    seq,
    attempt: 1,
    tool: 'refund.create',
    version: 'v1',
    effect: 'write',
    argsDigest: 'sha256:0000',
    args: { orderId: 'o-1', amount: 1200 },
    idempotencyKey: `${runId}:${seq}`,
    workerIdentity: 'worker-a',
    recordedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export function result(runId: string, seq: number, over: Partial<InvocationResult> = {}): InvocationResult {
  return {
    runId,
    seq,
    attempt: 1,
    status: 'succeeded',
    output: { refundId: 'rf-1' },
    externalId: 'rf-1',
    artifactIds: [],
    recordedAt: '2026-01-01T00:00:01.000Z',
    source: 'executor',
    ...over,
  };
}

export function observed(id: string, data: unknown = { refundId: 'rf-1' }): Artifact {
  return { id, type: 'refund.receipt', schemaVersion: '1', provenance: 'observed', data, externalId: 'rf-1' };
}

export function modelArtifact(id: string, data: unknown = { plan: 'refund order o-1' }): Artifact {
  return { id, type: 'plan', schemaVersion: '1', provenance: 'model', data };
}

export function event(runId: string, seq: number, over: Partial<StoredEvent> = {}): StoredEvent {
  const base = {
    runId,
    seq,
    eventId: `${runId}-ev-${seq}`,
    type: 'step.completed',
    occurredAt: '2026-01-01T00:00:02.000Z',
    data: { step: `s${seq}` },
  };
  return { ...base, envelope: { schema_version: '1', ...base }, ...over };
}

/** An event of an agent run as the runner emits it: its envelope pins the run's versions, stamped `at`. */
export function agentEvent(
  runId: string,
  seq: number,
  type: string,
  data: Record<string, unknown>,
  at: string,
): StoredEvent {
  const e = event(runId, seq, { type, data, occurredAt: at });
  return { ...e, envelope: { ...e.envelope, type, data, versions: RUN_VERSIONS, occurredAt: at } };
}

/** Assert that `promise` rejects with a HarnessError of `code`. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected rejection with ${code}`).toBeDefined();
  expect(isHarnessError(err) ? err.code : err).toBe(code);
}
