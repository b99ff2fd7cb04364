import { describe, expect, it } from 'vitest';
import type { DataClassification } from '../../../../src/contract/agent-event.js';
import { maskPhoneNumber, maskPhonesInText } from '../../../../src/client/evidence/phone-mask.js';
import {
  envelopesOf,
  projectPublic,
  REDACTED,
  runObligations,
  type ProjectableEvent,
} from '../../../../src/client/evidence/public-projection.js';

let seq = 0;
function ev(
  type: string,
  data: Record<string, unknown>,
  dataClassification: DataClassification = 'internal',
): ProjectableEvent {
  seq += 1;
  return {
    eventId: `r:${seq}`,
    runId: 'r',
    sequence: seq,
    type,
    occurredAt: '2026-01-01T00:00:00.000Z',
    stepId: 'query_order',
    data,
    dataClassification,
  };
}

const maskDecision = () =>
  ev('policy.decided', {
    stage: 'dispatch',
    tool: 'order.read',
    decision: 'allow',
    obligations: ['mask.phone'],
  });
const order = () =>
  ev(
    'tool.output',
    {
      tool: 'order.read',
      output: { orderId: 'ORD-1', phone: '13800001001', contact: { mobile: '+8613900002002' } },
      note: 'call 13800001001 if late',
    },
    'public',
  );

describe('public projection', () => {
  it('masks phone numbers at any depth and in free text when a policy decision carries mask.phone', () => {
    const p = projectPublic([maskDecision(), order()]);
    const data = p.events[1]!.data as {
      output: { phone: string; contact: { mobile: string } };
      note: string;
    };
    expect(data.output.phone).toBe('138****1001');
    expect(data.output.contact.mobile).toBe('+861******2002');
    expect(data.note).toBe('call 138****1001 if late');
    expect(p.events[1]!.redacted).toBe(true);
    expect(p.appliedObligations).toEqual(['mask.phone']);
    expect(JSON.stringify(p)).not.toContain('13800001001');
  });

  it('leaves phone numbers alone when no decision asks for masking', () => {
    const p = projectPublic([
      ev('policy.decided', { decision: 'allow', obligations: ['verify.order_owner'] }),
      order(),
    ]);
    expect((p.events[1]!.data as { output: { phone: string } }).output.phone).toBe('13800001001');
    expect(p.events[1]!.redacted).toBe(false);
    expect(p.appliedObligations).toEqual([]);
  });

  it('drops restricted events and restricted fields, redacts confidential events and fields', () => {
    const events = [
      ev('run.started', {}, 'public'),
      ev('credential.used', { apiKey: 'sk-secret' }, 'restricted'),
      ev('customer.profile', { name: 'Li Lei', email: 'li@example.com' }, 'confidential'),
      ev('tool.completed', {
        tool: 'x',
        headers: { Authorization: 'Bearer abc', accept: 'json' },
        customer: { email: 'li@example.com', tier: 'gold' },
      }),
    ];
    const p = projectPublic(events);
    expect(p.events.map((e) => e.type)).toEqual(['run.started', 'customer.profile', 'tool.completed']);
    expect(p.omittedSequences).toEqual([events[1]!.sequence]);
    expect(p.events[1]!.data).toEqual({ redacted: 'confidential' });
    expect(p.events[2]!.data).toEqual({
      tool: 'x',
      headers: { accept: 'json' },
      customer: { email: REDACTED, tier: 'gold' },
    });
    const text = JSON.stringify(p);
    expect(text).not.toContain('sk-secret');
    expect(text).not.toContain('Bearer abc');
    expect(text).not.toContain('li@example.com');
    expect(text).not.toContain('Li Lei');
  });

  it('does not modify its input and keeps order and sequences', () => {
    const events = [maskDecision(), order()];
    const before = JSON.stringify(events);
    const p = projectPublic(events, { obligations: ['mask.phone'] });
    expect(JSON.stringify(events)).toBe(before);
    expect(p.events.map((e) => e.sequence)).toEqual(events.map((e) => e.sequence));
  });

  it('collects obligations from policy.decided events only', () => {
    expect(
      runObligations([
        maskDecision(),
        ev('tool.completed', { obligations: ['x'] }),
        ev('policy.decided', { obligations: ['mask.phone', 'limit.refund_amount=5000'] }),
      ]),
    ).toEqual(['mask.phone', 'limit.refund_amount=5000']);
  });

  it('reads envelopes of stored events and refuses rows without one', () => {
    const e = order();
    expect(
      envelopesOf([
        {
          runId: 'r',
          seq: e.sequence,
          eventId: e.eventId,
          type: e.type,
          occurredAt: e.occurredAt,
          data: {},
          envelope: { ...e },
        },
      ])[0],
    ).toEqual(e);
    expect(() =>
      envelopesOf([
        { runId: 'r', seq: 1, eventId: 'x', type: 't', occurredAt: e.occurredAt, data: {}, envelope: {} },
      ]),
    ).toThrow(/no AgentEvent envelope/);
  });
});

describe('phone masks', () => {
  it('keeps three leading and four trailing digits', () => {
    expect(maskPhoneNumber('13800001001')).toBe('138****1001');
    expect(maskPhoneNumber('138-0000-1001')).toBe('138****1001');
    expect(maskPhoneNumber('12345')).toBe('*****');
  });
  it('does not touch amounts, ids and timestamps in text', () => {
    const text = 'refund 680000 cents for ORD-1005 at 2026-01-01T00:00:00Z, ticket 20260101123';
    expect(maskPhonesInText(text)).toBe(text);
  });
});
