import type { PayloadCodec } from '@temporalio/common';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { decodeHistoryPayloads } from '../../codec/history-payloads.js';
import type { ProofBundle } from '../../contract/proof-bundle.js';

/**
 * A copy of `bundle` whose histories have every payload decoded by `codec` (docs/evidence-chain.md,
 * "Encrypted histories"): the verifier reads `json/plain` payloads only, so a history a payload codec
 * encrypted verifies where the codec's keys are (`HARNESS_CODEC_KEYS`). Payloads the codec did not
 * encode pass through; a bundle without a history is returned as it is.
 * @throws the codec's errors (`codec.unknown_key`, `codec.decrypt_failed`); Error for a history that
 *   is not the SDK's JSON form.
 */
export async function decodeBundleHistories(bundle: ProofBundle, codec: PayloadCodec): Promise<ProofBundle> {
  if (!bundle.history) return bundle;
  const decode = async (h: Record<string, unknown>): Promise<Record<string, unknown>> =>
    JSON.parse(historyToJSON(await decodeHistoryPayloads(historyFromJSON(h), codec))) as Record<
      string,
      unknown
    >;
  const history = await decode(bundle.history);
  const earlier = bundle.earlierHistories
    ? await Promise.all(bundle.earlierHistories.map(decode))
    : undefined;
  return { ...bundle, history, ...(earlier ? { earlierHistories: earlier } : {}) };
}
