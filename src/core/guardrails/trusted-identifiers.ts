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

/** Where the identifiers occur in `text`. */
export function identifierSpans(text: string, ids: ReadonlySet<string>): Span[] {
  const spans: Span[] = [];
  for (const id of ids) {
    for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + id.length))
      spans.push({ start: at, end: at + id.length });
  }
  return spans;
}

/** True when `span` lies inside one of `within`. */
export function insideAny(span: Span, within: readonly Span[]): boolean {
  return within.some((w) => w.start <= span.start && span.end <= w.end);
}
