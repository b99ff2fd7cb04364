import { readFileSync, writeFileSync } from 'node:fs';
import { resolveAttestation } from '../../activities/attestation/chain-head-signer.js';
import { signSealLogCheckpoint } from '../../activities/attestation/seal-log-checkpoint.js';
import { appendSeals, readSealLog } from '../../activities/proof/seal-log-file.js';
import {
  buildSealLogProof,
  checkpointClaims,
  sealLogRoot,
  verifySealLogProof,
} from '../../client/proof/seal-log-proofs.js';
import { RUN_SEALED_EVENT } from '../../contract/chain-head.js';
import { MAX_PROOF_BUNDLE_BYTES, ProofBundleSchema } from '../../contract/proof-bundle.js';
import { SealLogProofSchema, type SealLogProof } from '../../contract/seal-log.js';
import { openCliStore } from '../connect.js';
import { EXIT, notFoundError, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { printable } from '../printable.js';
import { readAttestationRegistry } from '../read-attestation.js';

/** The runs `harness log append` reads at most per call when it lists them (`--created-from`). */
const LIST_LIMIT = 5000;

/**
 * `harness log append [runIds...] --log <file> [--created-from <iso>]`: append the seals of the runs
 * named, or of the runs created since `createdFrom` (oldest first, up to 5,000 per call), that are not
 * in the log yet. Runs without a seal are listed and skipped. Exit 2 with neither.
 */
export async function logAppendCommand(
  runIds: readonly string[],
  o: { log: string; createdFrom?: string },
  out: Output,
): Promise<number> {
  if (runIds.length === 0 && o.createdFrom === undefined)
    throw usageError('name runs, or --created-from <ISO time> for every run created since');
  const store = await openCliStore();
  try {
    const listed =
      o.createdFrom === undefined
        ? []
        : (await store.listRuns({ createdFrom: o.createdFrom, limit: LIST_LIMIT }))
            .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId))
            .map((r) => r.runId);
    const result = await appendSeals(o.log, store, [...runIds, ...listed]);
    out.data(result);
    out.line(`${o.log}: ${result.appended.length} seals appended, ${result.size} in the log`);
    if (result.unsealed.length > 0) out.line(`not sealed (skipped): ${result.unsealed.join(', ')}`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/**
 * `harness log checkpoint --log <file> [--name <log>] [--out <file>]`: sign the log's size and tree
 * head with the attestation key (`HARNESS_ATTESTATION_KEY`). Publish the checkpoint where the operator
 * cannot rewrite it. Exit 2 without a key.
 */
export function logCheckpointCommand(o: { log: string; name?: string; out?: string }, out: Output): number {
  const signer = resolveAttestation(process.env);
  if (!signer)
    throw usageError('a checkpoint is signed with the attestation key: set HARNESS_ATTESTATION_KEY');
  const entries = readSealLog(o.log);
  const claims = { log: o.name ?? 'harness-seals', size: entries.length, root: sealLogRoot(entries) };
  const checkpoint = { ...claims, checkpoint: signSealLogCheckpoint(signer, claims) };
  if (o.out !== undefined) writeFileSync(o.out, `${JSON.stringify(checkpoint, null, 2)}\n`);
  out.data(checkpoint);
  out.line(
    `checkpoint of ${claims.log}: ${claims.size} seals, tree head ${claims.root}${o.out ? ` (${o.out})` : ''}`,
  );
  return EXIT.ok;
}

/**
 * `harness log prove <runId> --log <file> --checkpoint <file> [--since <file>] --out <file>`: the run's
 * inclusion proof in the tree of the checkpoint, and with `--since` the consistency proof from an
 * earlier checkpoint. Exit 3 when the run is not in the log, 2 for a checkpoint of another log.
 */
export function logProveCommand(
  runId: string,
  o: { log: string; checkpoint: string; since?: string; out: string },
  out: Output,
): number {
  const entries = readSealLog(o.log);
  if (!entries.some((e) => e.run === runId))
    throw notFoundError(`run ${runId} is not in the seal log ${o.log}`);
  let proof: SealLogProof;
  try {
    proof = buildSealLogProof(
      entries,
      runId,
      readCheckpoint(o.checkpoint),
      o.since ? readCheckpoint(o.since) : undefined,
    );
  } catch (err) {
    throw usageError((err as Error).message);
  }
  writeFileSync(o.out, `${JSON.stringify(proof, null, 2)}\n`);
  const size = checkpointClaims(proof.checkpoint)?.size;
  out.data({ runId, out: o.out, index: proof.entry.i, size });
  out.line(`wrote ${o.out}: run ${runId} is entry ${proof.entry.i} of ${size} seals`);
  return EXIT.ok;
}

/**
 * `harness log verify <proof> [--bundle <file>] [--attestation <file>]`: check a run's proof of
 * inclusion (and consistency) against the attestation keys, and with `--bundle` that it logs that
 * bundle's seal. Exit 0 when it holds, 1 when not, 2 for a file that is not a proof.
 */
export function logVerifyCommand(
  file: string,
  o: { bundle?: string; attestation?: string },
  out: Output,
): number {
  const parsed = SealLogProofSchema.safeParse(readJson(file, 1024 * 1024));
  if (!parsed.success) throw usageError(`${file} is not a seal log proof`);
  const registry = readAttestationRegistry(o.attestation);
  let seal: { runId: string; seq: number; head: string } | undefined;
  if (o.bundle !== undefined) {
    const bundle = ProofBundleSchema.safeParse(readJson(o.bundle, MAX_PROOF_BUNDLE_BYTES));
    if (!bundle.success) throw usageError(`${o.bundle} is not a proof bundle`);
    const last = bundle.data.chain.events.at(-1);
    const type = last ? (JSON.parse(last.body) as { type?: string }).type : undefined;
    seal = {
      runId: bundle.data.runId,
      seq: last?.seq ?? 0,
      head: type === RUN_SEALED_EVENT ? (last?.chainHash ?? '') : '',
    };
  }
  const check = verifySealLogProof(parsed.data, registry, seal);
  out.data(check);
  out.line(`${check.ok ? 'PASS' : 'FAIL'}  ${check.code}  ${printable(check.detail)}`);
  return check.ok ? EXIT.ok : EXIT.runtime;
}

function readCheckpoint(file: string): string {
  const value = readJson(file, 64 * 1024) as { checkpoint?: unknown } | undefined;
  if (typeof value?.checkpoint !== 'string' || !checkpointClaims(value.checkpoint))
    throw usageError(`${file} is not a seal log checkpoint (harness log checkpoint --out)`);
  return value.checkpoint;
}

function readJson(file: string, max: number): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw notFoundError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (text.length > max) throw usageError(`${file} is over ${max} bytes`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw usageError(`${file} is not JSON`);
  }
}
