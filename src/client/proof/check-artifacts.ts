import { createHash } from 'node:crypto';
import { canonicalJson } from '../../contract/canonical-json.js';
import type { StoredArtifact } from '../../contract/store-records.js';
import { isWithheldTag, withheldTagsIn } from '../../contract/withheld-values.js';
import { fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';

/** `sha256:` of a value's canonical JSON (what the store writes as an artifact's digest). */
export function jsonSha256(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')}`;
}

/**
 * Artifact provenance (seed 000 C3): for every stored artifact,
 * - `artifacts.digest_mismatch`: its data no longer hashes to its digest, or its digest is withheld
 *   while its data withholds nothing (a digest is withheld only with the data it hashes: a bundle
 *   exported without values, docs/evidence-chain.md "Withheld outside the chain"; such digests are
 *   counted in the detail, not recomputed);
 * - `artifacts.unrecorded`: an observed or verified artifact no result of its invocation names;
 * - `artifacts.provenance_invalid`: a verified artifact without a verification subject and an
 *   explicit `passed`/`failed`, or a verification on another provenance;
 * - `artifacts.subject_missing`: a verified artifact whose subject (artifact id or external id) is
 *   nowhere in the run's records;
 * - `artifacts.ok`.
 */
export function checkArtifacts(input: ProofInput): ProofCheck {
  const ids = new Set(input.artifacts.map((a) => a.id));
  const externalIds = new Set<string>();
  for (const a of input.artifacts) if (a.externalId !== undefined) externalIds.add(a.externalId);
  for (const inv of input.invocations)
    for (const r of inv.results) if (r.externalId !== undefined) externalIds.add(r.externalId);
  let withheld = 0;
  for (const a of input.artifacts) {
    if (isWithheldTag(a.digest)) {
      if (withheldTagsIn(JSON.stringify(a.data ?? null)).length === 0)
        return fail(
          'artifacts',
          'artifacts.digest_mismatch',
          `artifact ${a.id}: its digest is withheld, but its data withholds nothing`,
        );
      withheld += 1;
    } else if (digestOf(a) !== a.digest)
      return fail(
        'artifacts',
        'artifacts.digest_mismatch',
        `artifact ${a.id}: its data does not hash to ${a.digest}`,
      );
    if (a.provenance !== 'model') {
      const named = input.invocations.some(
        (i) =>
          i.seq === a.seq && i.results.some((r) => r.attempt === a.attempt && r.artifactIds.includes(a.id)),
      );
      if (!named)
        return fail(
          'artifacts',
          'artifacts.unrecorded',
          `${a.provenance} artifact ${a.id} is named by no result`,
        );
    }
    const v = a.verification;
    if (
      (a.provenance === 'verified') !== (v !== undefined) ||
      (v && v.status !== 'passed' && v.status !== 'failed')
    )
      return fail(
        'artifacts',
        'artifacts.provenance_invalid',
        `artifact ${a.id}: provenance and verification disagree`,
      );
    if (v) {
      const s = v.subject;
      const found =
        (s.artifactId !== undefined && ids.has(s.artifactId)) ||
        (s.externalId !== undefined && externalIds.has(s.externalId));
      if (!found)
        return fail(
          'artifacts',
          'artifacts.subject_missing',
          `verified artifact ${a.id}: its subject is not in the run`,
        );
    }
  }
  return pass(
    'artifacts',
    'artifacts.ok',
    `${input.artifacts.length} artifacts: digests and provenance consistent${withheld > 0 ? ` (${withheld} digest(s) withheld by policy with their data, not recomputed)` : ''}`,
  );
}

/** The digest the store gives an artifact: of its data, or its reference's when the data is elsewhere. */
function digestOf(a: StoredArtifact): string {
  return a.data !== undefined || a.ref === undefined ? jsonSha256(a.data ?? null) : a.ref.digest;
}
