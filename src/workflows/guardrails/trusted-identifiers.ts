import type { Span } from './finding.js';
import type { RunEvidence } from './run-evidence.js';

/** Shortest identifier exempted (shorter ones would exempt too much of the text). */
const MIN_IDENTIFIER_LENGTH = 6;

/**
 * Identifiers of the business objects trusted tools observed or verified in the run: each trusted
 * artifact's external id and `data.id`, and the external id of the invocation that recorded it (and
 * of writes a person settled naming it). A number in a reply that is one of these (an order id, a
 * refund id) is that object's id, not a card or phone number. Tools must not use personal data as
 * object ids: such an id would be exempt too. Never throws.
 */
export function trustedIdentifiers(evidence: RunEvidence): Set<string> {
  const ids = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v.length >= MIN_IDENTIFIER_LENGTH) ids.add(v);
  };
  for (const t of [...evidence.observed, ...evidence.verified]) {
    add(t.artifact.externalId);
    add(t.producer.externalId);
    const data = t.artifact.data;
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) add((data as { id?: unknown }).id);
  }
  for (const w of evidence.attested) add(w.externalId);
  return ids;
}

/**
 * A test of whether a span of `text` lies inside one occurrence of one of the identifiers. The
 * occurrences are found once and folded into a table of the furthest end an occurrence starting at
 * or before each position reaches, so a lookup is one read, where testing every occurrence for
 * every finding is O(n²) when a long reply repeats an identifier. Never throws.
 */
export function identifierCover(text: string, ids: ReadonlySet<string>): (span: Span) => boolean {
  let reach: Int32Array | undefined;
  for (const id of ids) {
    for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + id.length)) {
      reach ??= new Int32Array(text.length + 1).fill(-1);
      reach[at] = Math.max(reach[at] ?? -1, at + id.length);
    }
  }
  if (reach === undefined) return () => false;
  for (let p = 1; p < reach.length; p += 1) reach[p] = Math.max(reach[p] ?? -1, reach[p - 1] ?? -1);
  const table = reach;
  return (span) => (table[span.start] ?? -1) >= span.end;
}
