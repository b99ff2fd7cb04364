import { isPlainObject } from '../../contract/canonical-json.js';
import type { ProofBundle } from '../../contract/proof-bundle.js';
import { PERSONAL_SEARCH_ATTRIBUTES } from '../../contract/withheld-values.js';
import {
  OPAQUE,
  forEachJsonPayload,
  readJsonPayload,
  writeJsonPayload,
} from '../../codec/json-history-payloads.js';
import { isWithheldKey, Withholding } from './withholding.js';

type Json = Record<string, unknown>;

/** Signals whose payloads the verifier checks against their signed tokens (kept as recorded). */
const SIGNED_DECISIONS = new Set(['approve', 'reject', 'confirm']);

/**
 * A copy of `bundle` with every copy of an erasable value outside its chain withheld
 * (docs/evidence-chain.md, "Withheld outside the chain"), under a key drawn for this call:
 * - learnt first: the values `known` (the openings the store still holds), every value under an
 *   erasable key (`ERASABLE_KEY`) or another withheld key (start token, taint digests) in the
 *   invocations, artifacts and decoded `json/plain` payloads of the histories, and the personal search
 *   attributes (`AgentUser`);
 * - then replaced by their tags: whole where they stand under such a key (or as such a search
 *   attribute or memo field), inside longer strings elsewhere (payloads and the histories' other
 *   strings: failure messages). An artifact whose data withheld something has its digest withheld too
 *   (it is a hash of that data: a guess of the value could be checked against it).
 * Kept as recorded, because the verifier checks them byte for byte: the chain (commitments already);
 * the payloads of signed decisions (`approve`, `reject`, `confirm` signals and the `decide` update),
 * bound to their tokens; the approver registry the run loaded, hashed to its digest. Payloads a codec
 * encoded, or in another encoding than `json/plain`, are opaque and left as they are.
 * Pure apart from drawing the key (`key` for tests). Never throws.
 */
export function redactProofBundle(
  bundle: ProofBundle,
  known: readonly unknown[],
  key?: Uint8Array,
): ProofBundle {
  const copy = structuredClone(bundle);
  const w = new Withholding(copy.chain.events.map((e) => e.body).join('\n'), key);
  for (const v of known) w.learn(v);
  w.collect(copy.invocations);
  w.collect(copy.artifacts);
  const histories = [...(copy.earlierHistories ?? []), ...(copy.history ? [copy.history] : [])];
  for (const h of histories)
    forEachJsonPayload(h, (p, field) => {
      const v = readJsonPayload(p);
      if (v === OPAQUE) return;
      if (field !== undefined && (PERSONAL_SEARCH_ATTRIBUTES.has(field) || isWithheldKey(field))) w.learn(v);
      else w.collect(v);
    });
  copy.invocations = copy.invocations.map((inv) => w.redact(inv) as ProofBundle['invocations'][number]);
  copy.artifacts = copy.artifacts.map((a) => {
    const r = w.redact(a) as Json;
    if (a.data !== undefined && JSON.stringify(r.data) !== JSON.stringify(a.data)) r.digest = w.tag(a.digest);
    return r;
  });
  for (const h of histories) redactHistory(h, w);
  return copy;
}

/** Withhold in one history (JSON form, changed in place), event by event. */
function redactHistory(history: Json, w: Withholding): void {
  const events = Array.isArray(history.events) ? (history.events as unknown[]) : [];
  for (const e of events) {
    if (!isPlainObject(e)) continue;
    const kept = keptAsRecorded(e);
    forEachJsonPayload(
      e,
      (p, field) => {
        if (kept.has(p)) return;
        const v = readJsonPayload(p);
        if (v === OPAQUE) return;
        const whole = field !== undefined && (PERSONAL_SEARCH_ATTRIBUTES.has(field) || isWithheldKey(field));
        const r = whole ? w.tag(v) : w.redact(v);
        if (JSON.stringify(r) !== JSON.stringify(v)) writeJsonPayload(p, r);
      },
      (holder, k, text) => {
        const s = w.scrub(text);
        if (s !== text) (holder as Record<string | number, unknown>)[k] = s;
      },
    );
  }
}

/** The payloads of `event` the verifier checks byte for byte: signed decisions and an approver registry. */
function keptAsRecorded(event: Json): Set<Json> {
  const kept = new Set<Json>();
  const keep = (node: unknown) => forEachJsonPayload(node, (p) => kept.add(p));
  const signal = event.workflowExecutionSignaledEventAttributes as Json | undefined;
  if (signal && SIGNED_DECISIONS.has(String(signal.signalName))) keep(signal.input);
  const update = event.workflowExecutionUpdateAcceptedEventAttributes as Json | undefined;
  const request = (update?.acceptedRequest as Json | undefined)?.input as Json | undefined;
  if (request?.name === 'decide') keep(request.args);
  const marker = event.markerRecordedEventAttributes as Json | undefined;
  if (marker)
    forEachJsonPayload(marker.details, (p) => {
      if (carriesRegistry(readJsonPayload(p))) kept.add(p);
    });
  return kept;
}

/** A local activity's result carrying an approver registry (`{ digest, registry }`, top level or under `principals`). */
function carriesRegistry(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const holder = isPlainObject(value.principals) ? value.principals : value;
  return typeof holder.digest === 'string' && isPlainObject(holder.registry);
}
