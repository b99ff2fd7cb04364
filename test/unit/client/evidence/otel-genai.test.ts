import { describe, expect, it } from 'vitest';
import { genAiSpans, type OtlpSpan } from '../../../../src/client/evidence/otel-genai.js';
import { projectPublic, type ProjectableEvent } from '../../../../src/client/evidence/public-projection.js';
import { otelTraceIdForRun } from '../../../../src/contract/run-trace.js';

const SECRET = 'sk-live-0123456789abcdef';
let seq = 0;
const at = (s: number) => new Date(Date.UTC(2026, 11, 5, 12, 0, s)).toISOString();
const ev = (type: string, data: Record<string, unknown>): ProjectableEvent => {
  seq += 1;
  return {
    eventId: `e${seq}`,
    runId: 'run-1',
    sequence: seq,
    type,
    occurredAt: at(seq),
    stepId: null,
    data,
    dataClassification: 'internal',
  };
};

const events = [
  ev('run.created', { versions: { profile: 'refund.graph@v1' } }),
  ev('guardrail.input_checked', { verdict: 'allow', reasonCodes: [], findings: [{ text: SECRET }] }),
  ev('model.started', {
    callSeq: 1,
    purpose: 'intent',
    modelRoute: 'openai/gpt',
    provider: 'openai',
    toolKeys: [],
  }),
  ev('model.completed', {
    callSeq: 1,
    purpose: 'intent',
    stopReason: 'end_turn',
    usage: { inputTokens: 120, outputTokens: 30 },
    costUsd: 0.002,
    toolCalls: [],
    modelRoute: 'openai/gpt',
    provider: 'openai',
  }),
  ev('policy.decided', {
    stage: 'dispatch',
    tool: 'refund.create',
    decision: 'require_confirmation',
    policyVersion: 'refund.rules@v1',
    reasonCodes: ['refund.needs_approval'],
    obligations: ['confirm.user.v2'],
  }),
  ev('human.decided', {
    actionId: 'a1',
    decision: 'approved',
    actor: 'amy@shop',
    reason: SECRET,
    verified: true,
    kind: 'approval',
  }),
  ev('tool.authorized', {
    seq: 7,
    tool: 'refund.create',
    version: 'v1',
    effect: 'write',
    argsDigest: 'sha256:00',
  }),
  ev('tool.completed', {
    seq: 7,
    tool: 'refund.create',
    version: 'v1',
    status: 'succeeded',
    externalId: 'R-1',
  }),
  ev('model.started', { callSeq: 2, purpose: 'answer', modelRoute: 'openai/gpt' }),
  ev('model.failed', {
    callSeq: 2,
    purpose: 'answer',
    modelRoute: 'openai/gpt',
    code: 'model.refused',
    message: SECRET,
  }),
  ev('run.completed', { status: 'succeeded', password: SECRET }),
];

const attrs = (s: OtlpSpan) =>
  Object.fromEntries(s.attributes.map((a) => [a.key, Object.values(a.value)[0]]));

describe('genAiSpans: a run as OTLP/JSON spans in the GenAI vocabulary', () => {
  const traces = genAiSpans('run-1', projectPublic(events).events);
  const spans = traces.resourceSpans[0]!.scopeSpans[0]!.spans;

  it('one invoke_agent root, chat per model call, execute_tool per tool call, apply_guardrail per decision', () => {
    expect(spans.map((s) => s.name)).toEqual([
      'invoke_agent refund.graph@v1',
      'apply_guardrail input',
      'chat openai/gpt',
      'apply_guardrail policy',
      'apply_guardrail human',
      'execute_tool refund.create',
      'chat openai/gpt',
    ]);
    const root = spans[0]!;
    expect(spans.every((s) => s.traceId === otelTraceIdForRun('run-1'))).toBe(true);
    expect(spans.slice(1).every((s) => s.parentSpanId === root.spanId)).toBe(true);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    expect(attrs(root)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'harness.run.status': 'succeeded',
    });
  });

  it('model and tool spans carry the conventions attributes and times', () => {
    const chat = spans[2]!;
    expect(attrs(chat)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'openai/gpt',
      'gen_ai.provider.name': 'openai',
      'gen_ai.usage.input_tokens': '120',
      'gen_ai.usage.output_tokens': '30',
      'gen_ai.response.finish_reasons': 'end_turn',
    });
    expect(chat.kind).toBe(3);
    expect(chat.startTimeUnixNano).toBe(`${Date.parse(at(3))}000000`);
    expect(chat.endTimeUnixNano).toBe(`${Date.parse(at(4))}000000`);
    expect(attrs(spans[5]!)).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'refund.create',
      'gen_ai.tool.call.id': 'run-1#7',
      'harness.tool.effect': 'write',
    });
    expect(attrs(spans[3]!)).toMatchObject({
      'gen_ai.operation.name': 'apply_guardrail',
      'harness.decision': 'require_confirmation',
      'harness.reason_codes': 'refund.needs_approval',
    });
    expect(spans[6]!.status).toEqual({ code: 2, message: 'model.refused' });
  });

  it('copies no text: no reason, message, finding or redacted field reaches a span', () => {
    expect(JSON.stringify(traces)).not.toContain(SECRET);
    expect(JSON.stringify(traces)).not.toContain('amy@shop');
  });
});
