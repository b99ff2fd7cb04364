import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

type History = proto.temporal.api.history.v1.IHistory;
const ProtoHistory = proto.temporal.api.history.v1.History;

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

/** A `temporal.api.common.v1.Payload` (the only message with a bytes `data` and a bytes map `metadata`). */
function isPayload(v: object): v is Payload {
  const p = v as { data?: unknown; metadata?: unknown };
  return (
    isBytes(p.data) &&
    typeof p.metadata === 'object' &&
    p.metadata !== null &&
    Object.values(p.metadata).every(isBytes)
  );
}

/**
 * Every payload in a history (or any tree of proto messages): inputs, results, memo, signal and
 * update arguments, failure details and encoded attributes, user metadata, headers, search
 * attributes. For scanning what a history holds in clear.
 */
export function payloadsOf(root: unknown): Payload[] {
  const out: Payload[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (typeof v !== 'object' || v === null || isBytes(v) || depth > 64) return;
    if (isPayload(v)) {
      out.push(v);
      return;
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) walk(child, depth + 1);
  };
  walk(root, 0);
  return out;
}

/**
 * A copy of `history` with every payload decoded by `codec` (payloads it did not encode pass through).
 * For tools that need the plain values of an encrypted history (the evaluation's failure samples).
 * @throws the codec's errors (`codec.unknown_key`, `codec.decrypt_failed`).
 */
export async function decodeHistoryPayloads(history: History, codec: PayloadCodec): Promise<History> {
  const copy = ProtoHistory.decode(ProtoHistory.encode(history).finish());
  for (const p of payloadsOf(copy)) {
    const [decoded] = await codec.decode([p]);
    p.metadata = decoded!.metadata ?? {};
    p.data = decoded!.data ?? new Uint8Array(0);
  }
  return copy;
}
