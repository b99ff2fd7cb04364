import { forEachJsonPayload, OPAQUE, readJsonPayload } from '../../codec/json-history-payloads.js';
import type { ProofBundle } from '../../contract/proof-bundle.js';
import { isWithheldTag, withheldTagsIn } from '../../contract/withheld-values.js';

/** What a bundle withholds outside its chain (docs/evidence-chain.md, "Withheld outside the chain"). */
export interface WithheldCount {
  /** Tags of withheld values in the bundle, every occurrence (withheld digests apart). */
  readonly copies: number;
  /** Distinct tags: distinct values withheld. */
  readonly values: number;
  /** Tags in the store's invocations, its artifacts, and the histories (payloads decoded). */
  readonly invocations: number;
  readonly artifacts: number;
  readonly histories: number;
  /** Artifacts whose digest is withheld with their data (not recomputed). */
  readonly digests: number;
}

/**
 * Count the withheld tags of a bundle: in its invocations, artifacts and histories (each `json/plain`
 * payload decoded, and the histories' other strings). Pure; never throws.
 */
export function countWithheld(bundle: ProofBundle): WithheldCount {
  const distinct = new Set<string>();
  const count = (text: string): number => {
    const tags = withheldTagsIn(text);
    for (const t of tags) distinct.add(t);
    return tags.length;
  };
  const invocations = count(JSON.stringify(bundle.invocations));
  // An artifact's withheld digest is counted apart (`digests`): it is a hash, not a value.
  const artifacts = count(JSON.stringify(bundle.artifacts.map(({ digest: _d, ...rest }) => rest)));
  let histories = 0;
  for (const h of [...(bundle.earlierHistories ?? []), ...(bundle.history ? [bundle.history] : [])])
    forEachJsonPayload(
      h,
      (p) => {
        const v = readJsonPayload(p);
        if (v !== OPAQUE) histories += count(JSON.stringify(v) ?? '');
      },
      (_holder, _key, text) => {
        histories += count(text);
      },
    );
  return {
    copies: invocations + artifacts + histories,
    values: distinct.size,
    invocations,
    artifacts,
    histories,
    digests: bundle.artifacts.filter((a) => isWithheldTag(a.digest)).length,
  };
}
