import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadPrincipalRegistry } from '../../activities/authz/principal-registry.js';
import { verifyProofBundle, type ProofReport } from '../../client/proof/verify-bundle.js';
import { MAX_PROOF_BUNDLE_BYTES, ProofBundleSchema, type ProofBundle } from '../../contract/proof-bundle.js';
import { collectProofBundle } from '../../activities/proof/collect-proof-bundle.js';
import { decodeBundleHistories } from '../../client/proof/decode-bundle.js';
import { payloadCodecFromEnv } from '../../codec/codec-from-env.js';
import { countWithheld } from '../../client/proof/count-withheld.js';
import type { PayloadCodec } from '@temporalio/common';
import { connectTemporal, openCliStore } from '../connect.js';
import { EXIT, notFoundError, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { printable } from '../printable.js';
import { readAttestationRegistry } from '../read-attestation.js';
import type { AttestationRegistry } from '../../contract/chain-head.js';

export interface VerifyOptions {
  /** Verify this bundle file instead of the run's store and history. */
  readonly bundle?: string;
  /** The approver registry the auditor trusts: decisions under another registry fail. */
  readonly principals?: string;
  /** The attestation key registry the signed heads are checked with (default: HARNESS_ATTESTATION_KEYS, else the bundle's). */
  readonly attestation?: string;
}

/** Options of `harness export`. */
export interface ExportOptions {
  readonly bundle?: string;
  readonly otel?: string;
  readonly attestation?: string;
  /** Put the stored erasable values and their salts in the bundle (default: withheld by policy). */
  readonly withValues?: boolean;
  /** Write the history's payloads decoded by the environment's payload codec. */
  readonly decode?: boolean;
}

/**
 * `harness verify <runId>` / `harness verify --bundle <file>` (docs/evidence-chain.md): one line per
 * check (`PASS`/`FAIL`, reason code, detail). Exit 0 when every check passed, 1 when one failed, 3 when
 * the run has no stored events or the bundle file is missing, 2 for a bundle that is not one.
 */
export async function verifyCommand(
  runId: string | undefined,
  o: VerifyOptions,
  out: Output,
): Promise<number> {
  const trusted = o.principals !== undefined ? loadPrincipalRegistry(o.principals).digest : undefined;
  const attestation = readAttestationRegistry(o.attestation);
  // A history a payload codec encrypted is read with the codec keys of the environment.
  const codec = payloadCodecFromEnv();
  let bundle: ProofBundle;
  if (o.bundle !== undefined) {
    bundle = readBundle(o.bundle);
    if (runId !== undefined && runId !== bundle.runId)
      throw usageError(`the bundle is for run ${bundle.runId}, not ${runId}`);
    if (codec) bundle = await decodeBundleHistories(bundle, codec);
  } else {
    if (runId === undefined) throw usageError('name a run id, or a bundle with --bundle <file>');
    // Verified where the values are: each stored value is checked against its commitment (decoded
    // before an erased run's values are withheld, so both records are withheld alike).
    bundle = await collect(runId, attestation, true, codec);
  }
  const report = verifyProofBundle(bundle, {
    ...(trusted !== undefined ? { trustedRegistryDigest: trusted } : {}),
    ...(attestation !== undefined ? { attestation } : {}),
  });
  out.data(report);
  out.line(renderReport(report));
  return report.ok ? EXIT.ok : EXIT.runtime;
}

/**
 * `harness export <runId> --bundle <file>`: write the run's self-contained proof bundle (its chained
 * events, invocations, artifacts, Temporal history, erasures and the attestation keys of `--attestation`
 * or `HARNESS_ATTESTATION_KEYS`) for `harness verify --bundle` elsewhere. Erasable values are withheld
 * by policy (commitments in the chain, tags everywhere else: docs/evidence-chain.md "Withheld outside the
 * chain") unless `--with-values` (a run with an erasure is withheld outside the chain even then). The
 * history keeps its payloads as Temporal holds them; `decode` writes them decoded by the environment's
 * payload codec (before withholding), so an auditor without the codec keys can verify it.
 * Exit 3 when the store holds no events of the run.
 */
export async function exportCommand(
  runId: string,
  o: ExportOptions & { readonly bundle: string },
  out: Output,
): Promise<number> {
  const codec = o.decode ? payloadCodecFromEnv() : undefined;
  if (o.decode && !codec) throw usageError('--decode needs the payload codec keys (HARNESS_CODEC_KEYS)');
  const bundle = await collect(runId, readAttestationRegistry(o.attestation), o.withValues === true, codec);
  writeFileSync(o.bundle, `${JSON.stringify(bundle)}\n`);
  const opened = bundle.erasure?.openings.length ?? 0;
  const withheld = countWithheld(bundle);
  const generations = bundle.history ? 1 + (bundle.earlierHistories?.length ?? 0) : 0;
  out.data({
    runId,
    bundle: o.bundle,
    events: bundle.chain.events.length,
    history: bundle.history !== null,
    generations,
    openedValues: opened,
    withheld: { copies: withheld.copies, values: withheld.values },
  });
  out.line(
    `wrote ${o.bundle}: ${bundle.chain.events.length} events${generations > 1 ? ` and the histories of ${generations} generations` : bundle.history ? ' and the history' : ', no history'}, ${o.withValues === true ? `${opened} erasable value(s) opened` : 'erasable values withheld by policy'}${withheld.copies > 0 ? `, ${withheld.copies} cop${withheld.copies === 1 ? 'y' : 'ies'} of ${withheld.values} value(s) withheld outside the chain` : ''}`,
  );
  out.line(`verify it anywhere: harness verify --bundle ${o.bundle}`);
  return EXIT.ok;
}

async function collect(
  runId: string,
  attestation: AttestationRegistry | undefined,
  withValues: boolean,
  codec?: PayloadCodec,
): Promise<ProofBundle> {
  const store = await openCliStore();
  try {
    const t = await connectTemporal();
    try {
      const bundle = await collectProofBundle(
        store,
        t.client,
        runId,
        attestation ?? null,
        new Date(),
        undefined,
        { withValues, ...(codec ? { codec } : {}) },
      );
      if (bundle.chain.events.length === 0)
        throw notFoundError(`the evidence store holds no events of run ${runId}`);
      return bundle;
    } finally {
      await t.close();
    }
  } finally {
    await store.close();
  }
}

/** Read and validate a bundle file. @throws cli.not_found (missing), cli.usage (too large, not JSON, not a bundle). */
function readBundle(file: string): ProofBundle {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw notFoundError(`no bundle file ${file}`);
  }
  if (size > MAX_PROOF_BUNDLE_BYTES)
    throw usageError(`the bundle ${file} is over ${MAX_PROOF_BUNDLE_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw usageError(`the bundle ${file} is not JSON: ${(err as Error).message}`);
  }
  const parsed = ProofBundleSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw usageError(`${file} is not a proof bundle: ${first?.path.join('.') || '/'}: ${first?.message}`);
  }
  return parsed.data;
}

function renderReport(r: ProofReport): string {
  const width = Math.max(...r.checks.map((c) => c.code.length));
  const lines = r.checks.map(
    (c) =>
      `${c.ok ? 'PASS' : 'FAIL'}  ${c.check.padEnd(11)}  ${c.code.padEnd(width)}  ${printable(c.detail)}`,
  );
  const failed = r.checks.filter((c) => !c.ok).length;
  lines.push(
    failed === 0
      ? `verified: run ${printable(r.runId)}`
      : `NOT verified: run ${printable(r.runId)}, ${failed} check(s) failed`,
  );
  return lines.join('\n');
}
