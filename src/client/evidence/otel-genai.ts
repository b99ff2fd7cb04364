import { createHash } from 'node:crypto';
import { otelTraceIdForRun } from '../../contract/run-trace.js';
import type { PublicEvent } from './public-projection.js';

/** An OTLP/JSON attribute value (opentelemetry-proto `AnyValue`, JSON mapping). */
type AnyValue =
  { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };

/** One OTLP/JSON span (opentelemetry-proto `Span`, JSON mapping: ids in hex, times in ns strings). */
export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** 1 internal, 3 client (a model call). */
  readonly kind: 1 | 3;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: { key: string; value: AnyValue }[];
  /** 0 unset, 2 error. */
  readonly status: { code: 0 | 2; message?: string };
}

/** An OTLP/JSON trace export request (`ExportTraceServiceRequest`) with the run's spans. */
export interface OtlpTraces {
  readonly resourceSpans: {
    resource: { attributes: OtlpSpan['attributes'] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[];
  }[];
}

/** The instrumentation scope of the export. */
export const OTEL_GENAI_SCOPE = 'agent-harness/evidence-export';

const nanos = (iso: string): string => `${BigInt(Date.parse(iso)) * 1_000_000n}`;
const spanIdOf = (runId: string, key: string): string =>
  createHash('sha256').update(`${runId}\0${key}`).digest('hex').slice(0, 16);

function attr(key: string, value: unknown): { key: string; value: AnyValue }[] {
  if (typeof value === 'string') return [{ key, value: { stringValue: value } }];
  if (typeof value === 'boolean') return [{ key, value: { boolValue: value } }];
  if (typeof value === 'number' && Number.isInteger(value))
    return [{ key, value: { intValue: String(value) } }];
  if (typeof value === 'number' && Number.isFinite(value)) return [{ key, value: { doubleValue: value } }];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return [{ key, value: { stringValue: value.join(',') } }];
  return [];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
/** The first of `values` that is a string, else `fallback`. */
const str = (fallback: string, ...values: unknown[]): string => {
  for (const v of values) if (typeof v === 'string') return v;
  return fallback;
};
const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * A run's events as OpenTelemetry spans in the GenAI semantic conventions' vocabulary
 * (docs/evidence-chain.md, "OpenTelemetry export"): one `invoke_agent` span for the run, a `chat`
 * span per model call (`model.started` to `model.completed` or `model.failed`: `gen_ai.request.model`,
 * `gen_ai.provider.name`, `gen_ai.usage.input_tokens` / `output_tokens`,
 * `gen_ai.response.finish_reasons`), an `execute_tool` span per tool call (`tool.authorized` to
 * `tool.completed` or `tool.failed`: `gen_ai.tool.name`, `gen_ai.tool.call.id`), and an
 * `apply_guardrail` span per policy, guardrail or human decision (`policy.decided`,
 * `guardrail.input_checked`, `guardrail.output_checked`, `human.decided`). Harness facts go under
 * `harness.*`. The trace id is the run's (`otelTraceIdForRun`), the one live tracing uses.
 *
 * Takes the run's **public projection** (redaction and obligations already applied) and copies only
 * names, versions, codes, counts and times: no prompt, message, argument, output or reason text.
 * Pure apart from hashing; never throws.
 */
export function genAiSpans(runId: string, events: readonly PublicEvent[]): OtlpTraces {
  const traceId = otelTraceIdForRun(runId);
  const root = spanIdOf(runId, 'run');
  const spans: OtlpSpan[] = [];
  const open = new Map<string, PublicEvent>();
  const span = (
    key: string,
    name: string,
    start: PublicEvent,
    end: PublicEvent,
    attributes: OtlpSpan['attributes'],
    error?: string,
  ) =>
    spans.push({
      traceId,
      spanId: spanIdOf(runId, key),
      parentSpanId: root,
      name,
      kind: name.startsWith('chat') ? 3 : 1,
      startTimeUnixNano: nanos(start.occurredAt),
      endTimeUnixNano: nanos(end.occurredAt),
      attributes: [...attributes, ...attr('harness.event.sequence', start.sequence)],
      status: error === undefined ? { code: 0 } : { code: 2, message: error },
    });
  let profile = '';
  let status: string | undefined;
  for (const e of events) {
    const d = e.data;
    if (e.type === 'run.created') profile = str('', obj(d.versions).profile);
    if (e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.cancelled')
      status = str('', d.status);
    if (e.type === 'model.started') open.set(`model:${String(d.callSeq)}`, e);
    if (e.type === 'model.completed' || e.type === 'model.failed') {
      const key = `model:${String(d.callSeq)}`;
      const start = open.get(key) ?? e;
      open.delete(key);
      const route = d.modelRoute ?? start.data.modelRoute;
      const usage = obj(d.usage);
      span(
        `${key}@${e.sequence}`,
        `chat ${str('model', route)}`,
        start,
        e,
        [
          ...attr('gen_ai.operation.name', 'chat'),
          ...attr('gen_ai.request.model', route),
          ...attr('gen_ai.provider.name', d.provider ?? start.data.provider),
          ...attr('gen_ai.usage.input_tokens', num(usage.inputTokens)),
          ...attr('gen_ai.usage.output_tokens', num(usage.outputTokens)),
          ...(typeof d.stopReason === 'string' ? attr('gen_ai.response.finish_reasons', [d.stopReason]) : []),
          ...attr('harness.model.purpose', d.purpose),
          ...attr('harness.cost_usd', num(d.costUsd)),
        ],
        e.type === 'model.failed' ? str('model.failed', d.code) : undefined,
      );
    }
    if (e.type === 'tool.authorized') open.set(`tool:${String(d.seq)}`, e);
    if (e.type === 'tool.completed' || e.type === 'tool.failed') {
      const key = `tool:${String(d.seq)}`;
      const start = open.get(key) ?? e;
      open.delete(key);
      span(
        `${key}@${e.sequence}`,
        `execute_tool ${String(d.tool)}`,
        start,
        e,
        [
          ...attr('gen_ai.operation.name', 'execute_tool'),
          ...attr('gen_ai.tool.name', d.tool),
          ...attr('gen_ai.tool.type', 'function'),
          ...attr('gen_ai.tool.call.id', `${runId}#${String(d.seq)}`),
          ...attr('harness.tool.version', d.version ?? start.data.version),
          ...attr('harness.tool.effect', start.data.effect),
          ...attr('harness.tool.status', d.status),
        ],
        e.type === 'tool.failed' || d.status === 'failed_terminal'
          ? str('tool.failed', d.code, d.status)
          : undefined,
      );
    }
    const decision = decisionAttributes(e);
    if (decision)
      span(`decision:${e.sequence}`, `apply_guardrail ${decision.name}`, e, e, [
        ...attr('gen_ai.operation.name', 'apply_guardrail'),
        ...decision.attributes,
      ]);
  }
  const first = events[0];
  const last = events.at(-1);
  if (first && last)
    spans.unshift({
      traceId,
      spanId: root,
      name: `invoke_agent ${profile}`.trim(),
      kind: 1,
      startTimeUnixNano: nanos(first.occurredAt),
      endTimeUnixNano: nanos(last.occurredAt),
      attributes: [
        ...attr('gen_ai.operation.name', 'invoke_agent'),
        ...attr('gen_ai.agent.name', profile),
        ...attr('gen_ai.conversation.id', runId),
        ...attr('harness.run.status', status),
      ],
      status: status === undefined || status === 'succeeded' ? { code: 0 } : { code: 2, message: status },
    });
  return {
    resourceSpans: [
      {
        resource: { attributes: attr('service.name', 'agent-harness') },
        scopeSpans: [{ scope: { name: OTEL_GENAI_SCOPE, version: '1' }, spans }],
      },
    ],
  };
}

/** The guardrail span's name and attributes of a decision event, else `undefined`. */
function decisionAttributes(
  e: PublicEvent,
): { name: string; attributes: OtlpSpan['attributes'] } | undefined {
  const d = e.data;
  if (e.type === 'policy.decided')
    return {
      name: 'policy',
      attributes: [
        ...attr('harness.guardrail.kind', 'policy'),
        ...attr('harness.decision', d.decision),
        ...attr('harness.policy.version', d.policyVersion),
        ...attr('harness.reason_codes', d.reasonCodes),
        ...attr('harness.obligations', d.obligations),
        ...attr('gen_ai.tool.name', d.tool),
      ],
    };
  if (e.type === 'guardrail.input_checked' || e.type === 'guardrail.output_checked') {
    const stage = e.type === 'guardrail.input_checked' ? 'input' : 'output';
    return {
      name: stage,
      attributes: [
        ...attr('harness.guardrail.kind', stage),
        ...attr('harness.decision', d.verdict),
        ...attr('harness.reason_codes', d.reasonCodes),
      ],
    };
  }
  if (e.type === 'human.decided')
    return {
      name: 'human',
      attributes: [
        ...attr('harness.guardrail.kind', 'human'),
        ...attr('harness.decision', d.decision),
        ...attr('harness.decision.kind', d.kind),
        ...attr('harness.decision.verified', d.verified),
      ],
    };
  return undefined;
}
