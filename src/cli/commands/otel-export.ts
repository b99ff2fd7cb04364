import { writeFileSync } from 'node:fs';
import { envelopesOf, projectPublic } from '../../client/evidence/public-projection.js';
import { genAiSpans } from '../../client/evidence/otel-genai.js';
import type { StoredEvent } from '../../contract/store-records.js';
import { openCliStore } from '../connect.js';
import { EXIT, notFoundError } from '../errors.js';
import type { Output } from '../output.js';

const PAGE = 5000;

/**
 * `harness export <runId> --otel <file>` (docs/evidence-chain.md, "OpenTelemetry export"): the run's
 * stored events, through their public projection (redaction and obligations applied), as OTLP/JSON
 * spans in the GenAI semantic conventions' vocabulary, for any OTLP/JSON consumer (a collector's
 * `otlpjsonfile` receiver, a trace viewer). Reads the evidence store only (no Temporal).
 * Exit 3 when the store holds no events of the run.
 */
export async function otelExportCommand(runId: string, o: { otel: string }, out: Output): Promise<number> {
  const store = await openCliStore();
  const stored: StoredEvent[] = [];
  try {
    for (let after = 0; ;) {
      const page = await store.listEvents(runId, { afterSeq: after, limit: PAGE });
      stored.push(...page);
      const last = page.at(-1);
      if (last === undefined || page.length < PAGE) break;
      after = last.seq;
    }
  } finally {
    await store.close();
  }
  if (stored.length === 0) throw notFoundError(`the evidence store holds no events of run ${runId}`);
  const traces = genAiSpans(runId, projectPublic(envelopesOf(stored)).events);
  const spans = traces.resourceSpans[0]?.scopeSpans[0]?.spans.length ?? 0;
  writeFileSync(o.otel, `${JSON.stringify(traces)}\n`);
  out.data({ runId, otel: o.otel, events: stored.length, spans });
  out.line(`wrote ${o.otel}: ${spans} spans (OTLP/JSON, GenAI conventions) from ${stored.length} events`);
  return EXIT.ok;
}
