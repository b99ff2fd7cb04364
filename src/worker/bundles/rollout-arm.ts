import { createHash } from 'node:crypto';
import { ROLLOUT_BUCKETS, type RolloutArm } from '../../contract/bundles.js';

/**
 * The rollout bucket of a run: the first four bytes of SHA-256(`rolloutId` NUL `workflowId`), big
 * endian, modulo 10,000. Deterministic: the same run id always lands in the same bucket of a rollout,
 * on every worker and every retry; another rollout id reshuffles the buckets.
 */
export function rolloutBucket(rolloutId: string, workflowId: string): number {
  const digest = createHash('sha256').update(`${rolloutId}\u0000${workflowId}`, 'utf8').digest();
  return digest.readUInt32BE(0) % ROLLOUT_BUCKETS;
}

/**
 * The arm of a bucket: `candidate` iff bucket < percent × 100. Raising the percentage only moves
 * stable buckets to the candidate (never back); 0 sends no run there, 100 every run.
 */
export function armOfBucket(bucket: number, candidatePercent: number): RolloutArm {
  return bucket < Math.round(candidatePercent * 100) ? 'candidate' : 'stable';
}

/** The arm of a new run: {@link armOfBucket} of its {@link rolloutBucket}. The one function starts use. */
export function assignArm(
  rolloutId: string,
  candidatePercent: number,
  workflowId: string,
): { readonly arm: RolloutArm; readonly bucket: number } {
  const bucket = rolloutBucket(rolloutId, workflowId);
  return { arm: armOfBucket(bucket, candidatePercent), bucket };
}
