import { createHash } from 'node:crypto';
import type { AttestationRegistry } from '../../contract/chain-head.js';
import { canonicalJson } from '../../contract/canonical-json.js';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  treeHead,
  verifyConsistency,
  verifyInclusion,
} from '../../contract/merkle-tree.js';
import {
  SEAL_LOG_CHECKPOINT_TYPE,
  SEAL_LOG_PROOF_FORMAT,
  SealLogCheckpointClaimsSchema,
  type SealLogCheckpointClaims,
  type SealLogEntry,
  type SealLogProof,
} from '../../contract/seal-log.js';
import { verifyAttestationJws } from './verify-attestation-jws.js';

const sha256 = (d: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(d).digest());
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

/** The leaf hash of an entry: `HASH(0x00 || canonical JSON of { run, seq, head })`. */
export function sealLeafHash(entry: Pick<SealLogEntry, 'run' | 'seq' | 'head'>): Uint8Array {
  const { run, seq, head } = entry;
  return leafHash(sha256, Buffer.from(canonicalJson({ run, seq, head }), 'utf8'));
}

/** The tree head (hex) of the first `size` entries. @throws RangeError for a size over the log's. */
export function sealLogRoot(entries: readonly SealLogEntry[], size = entries.length): string {
  if (size > entries.length) throw new RangeError(`the log holds ${entries.length} entries, not ${size}`);
  return hex(treeHead(sha256, entries.slice(0, size).map(sealLeafHash)));
}

/**
 * The proof that `runId`'s entry is in the tree the signed `checkpoint` names (its size), and with
 * `since` (an earlier signed checkpoint) that the log then was a prefix of it.
 * @throws Error when the run has no entry within the checkpoint's size, or a checkpoint is unreadable
 *   or names a size over the log's or another tree head than the log has at that size.
 */
export function buildSealLogProof(
  entries: readonly SealLogEntry[],
  runId: string,
  checkpoint: string,
  since?: string,
): SealLogProof {
  const claims = checkpointClaims(checkpoint);
  if (!claims) throw new Error('the checkpoint is not a signed seal log checkpoint');
  if (claims.size > entries.length || sealLogRoot(entries, claims.size) !== claims.root)
    throw new Error(`the checkpoint (size ${claims.size}) is not a tree head of this log`);
  const entry = entries.slice(0, claims.size).find((e) => e.run === runId);
  if (!entry) throw new Error(`run ${runId} has no entry in the log's first ${claims.size} entries`);
  const leaves = entries.slice(0, claims.size).map(sealLeafHash);
  const proof: SealLogProof = {
    format: SEAL_LOG_PROOF_FORMAT,
    entry,
    checkpoint,
    path: inclusionProof(sha256, entry.i, leaves).map(hex),
  };
  if (since === undefined) return proof;
  const from = checkpointClaims(since);
  if (!from || from.size < 1 || from.size > claims.size)
    throw new Error('--since is not a signed checkpoint of a smaller, non-empty tree');
  return {
    ...proof,
    consistency: { from: since, path: consistencyProof(sha256, from.size, leaves).map(hex) },
  };
}

/** One line of {@link verifySealLogProof}. */
export interface SealLogCheck {
  readonly ok: boolean;
  readonly code: string;
  readonly detail: string;
}

/**
 * Verify a seal log proof (docs/evidence-chain.md, "The seal log"), each step with a reason code:
 * `log.checkpoint_invalid` / `log.unknown_key` / `log.key_not_valid` / `log.signature_invalid` (the
 * checkpoint against the attestation key registry), `log.not_included` (the audit path does not lead
 * from the entry to the checkpoint's tree head), `log.inconsistent` (the earlier checkpoint's tree is
 * not a prefix of the later one: the log was rewritten), `log.seal_mismatch` (`seal`, the chain hash of
 * the bundle's `run.sealed` event, is not the logged one), else `log.ok`. Never throws.
 */
export function verifySealLogProof(
  proof: SealLogProof,
  registry: AttestationRegistry | undefined,
  seal?: { readonly runId: string; readonly seq: number; readonly head: string },
): SealLogCheck {
  const checkpoint = verifiedCheckpoint(proof.checkpoint, registry);
  if ('code' in checkpoint) return checkpoint;
  const { size, root } = checkpoint;
  const e = proof.entry;
  if (!verifyInclusion(sha256, e.i, size, sealLeafHash(e), proof.path.map(bytes), bytes(root)))
    return fail('log.not_included', `run ${e.run} is not entry ${e.i} of the tree of ${size} seals signed`);
  if (proof.consistency) {
    const from = verifiedCheckpoint(proof.consistency.from, registry);
    if ('code' in from) return from;
    if (
      from.log !== checkpoint.log ||
      !verifyConsistency(
        sha256,
        from.size,
        size,
        bytes(from.root),
        bytes(root),
        proof.consistency.path.map(bytes),
      )
    )
      return fail(
        'log.inconsistent',
        `the log of ${from.size} seals checkpointed earlier is not a prefix of the log of ${size}: it was rewritten`,
      );
  }
  if (seal && (seal.runId !== e.run || seal.seq !== e.seq || seal.head !== e.head))
    return fail('log.seal_mismatch', `the bundle's seal of run ${seal.runId} is not the one the log holds`);
  return {
    ok: true,
    code: 'log.ok',
    detail: `run ${e.run}'s seal is entry ${e.i} of the ${size} seals of log ${checkpoint.log}${proof.consistency ? ', which extends the earlier checkpoint' : ''}`,
  };
}

/** A checkpoint's claims, signature not checked; `undefined` when it is not one. Never throws. */
export function checkpointClaims(token: string): SealLogCheckpointClaims | undefined {
  const [header, body] = token.split('.');
  if (jsonOf(header)?.typ !== SEAL_LOG_CHECKPOINT_TYPE) return undefined;
  const claims = SealLogCheckpointClaimsSchema.safeParse(jsonOf(body));
  return claims.success ? claims.data : undefined;
}

function verifiedCheckpoint(
  token: string,
  registry: AttestationRegistry | undefined,
): SealLogCheckpointClaims | SealLogCheck {
  const verified = verifyAttestationJws(token, registry, {
    typ: SEAL_LOG_CHECKPOINT_TYPE,
    claims: SealLogCheckpointClaimsSchema,
  });
  if (verified.ok) return verified.claims;
  switch (verified.reason) {
    case 'malformed':
      return fail('log.checkpoint_invalid', 'the checkpoint is not a signed seal log checkpoint');
    case 'unknown_key':
      return fail('log.unknown_key', `key ${verified.kid} is not in the attestation registry`);
    case 'key_not_valid':
      return fail('log.key_not_valid', `key ${verified.kid} was not valid when it signed the checkpoint`);
    case 'signature_invalid':
      return fail('log.signature_invalid', `the checkpoint does not verify with key ${verified.kid}`);
  }
}

function fail(code: string, detail: string): SealLogCheck {
  return { ok: false, code, detail };
}

function jsonOf(segment: string | undefined): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
