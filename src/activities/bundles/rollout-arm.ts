import { createHmac } from 'node:crypto';
import { ROLLOUT_BUCKETS, type RolloutArm } from '../../contract/bundles.js';

/**
 * The rollout bucket of a run: the first four bytes of HMAC-SHA256 keyed with the workers' rollout
 * secret over `rolloutId` NUL `workflowId`, big endian, modulo 10,000. Deterministic for one secret:
 * the same run id lands in the same bucket of a rollout on every worker that shares the secret, and
 * another rollout id reshuffles the buckets. Without the secret a starter cannot tell which bucket a
 * workflow id falls in, so it cannot pick its arm (and so a candidate bundle) by choosing the id
 * (docs/control-plane.md). The secret never leaves the worker: only the bucket and arm are recorded.
 */
export function rolloutBucket(rolloutId: string, workflowId: string, secret: Uint8Array): number {
  const digest = createHmac('sha256', secret).update(`${rolloutId}\u0000${workflowId}`, 'utf8').digest();
  return digest.readUInt32BE(0) % ROLLOUT_BUCKETS;
}

/**
 * The arm of a bucket: `candidate` iff bucket < percent × 100. Raising the percentage only moves
 * stable buckets to the candidate (never back); 0 sends no run there, 100 every run.
 */
export function armOfBucket(bucket: number, candidatePercent: number): RolloutArm {
  return bucket < Math.round(candidatePercent * 100) ? 'candidate' : 'stable';
}

/**
 * The arm of a new run: {@link armOfBucket} of its {@link rolloutBucket} under the workers' rollout
 * secret. The one function starts use.
 */
export function assignArm(
  rolloutId: string,
  candidatePercent: number,
  workflowId: string,
  secret: Uint8Array,
): { readonly arm: RolloutArm; readonly bucket: number } {
  const bucket = rolloutBucket(rolloutId, workflowId, secret);
  return { arm: armOfBucket(bucket, candidatePercent), bucket };
}
