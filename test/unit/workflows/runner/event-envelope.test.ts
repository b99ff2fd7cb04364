import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, envelopeOf } from '../../../../src/workflows/runner/event-catalogue.js';
import { classifyFields, DEFAULT_FIELD_RULES } from '../../../../src/contract/field-classification.js';
import { packEvents, unpackEvents } from '../../../../src/contract/packed-events.js';
import { decision, fakeRun } from './fake-run.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

describe('the event envelope (agent-run-event-envelope-v1)', () => {
  it('producer and classification come from the catalogue; the trace id from the run', async () => {
    const run = fakeRun({
      eventEnvelope: { traceId: TRACE },
      model: () => decision({ text: 'answer' }),
      run: async (ctx) => {
        const d = await ctx.model('decide', { messages: [{ role: 'user', content: 'q' }] });
        return { output: d.text };
      },
    });
    expect((await run.execute()).status).toBe('succeeded');
    const events = run.ports.events;
    expect(run.ports.typesOf()).toContain('model.started');
    expect(run.ports.typesOf()).not.toContain('model.requested');
    for (const e of events) {
      expect(e.traceId).toBe(TRACE);
      expect({ producer: e.producer, classification: e.dataClassification }).toEqual(EVENT_CATALOGUE[e.type]);
    }
    // packed for an activity and restored: the trace id survives
    expect(unpackEvents(packEvents(events))).toEqual(events);
  });

  it('runs from before it keep the old envelope: model.requested, runner, internal, the run id', async () => {
    const run = fakeRun({
      model: () => decision({ text: 'answer' }),
      run: async (ctx) => ({
        output: (await ctx.model('decide', { messages: [{ role: 'user', content: 'q' }] })).text,
      }),
    });
    await run.execute();
    expect(run.ports.typesOf()).toContain('model.requested');
    for (const e of run.ports.events) {
      expect(e).toMatchObject({ traceId: e.runId, producer: 'runner', dataClassification: 'internal' });
    }
    const packed = packEvents(run.ports.events);
    expect(packed.run).not.toHaveProperty('traceId');
    expect(unpackEvents(packed)).toEqual(run.ports.events);
  });

  it('a field the public projection classifies stricter raises the event; a profile event is the profile', async () => {
    const run = fakeRun({
      eventEnvelope: { traceId: TRACE },
      run: (ctx) => {
        ctx.emit('demo.contact', { customer: { email: 'a@example.com' } });
        ctx.emit('demo.secret', { nested: [{ apiKey: 'x' }] });
        ctx.emit('demo.plain', { note: 'n' });
        ctx.emit('demo.asked', { note: 'n' }, 'confidential');
        return Promise.resolve({ output: 'x' });
      },
    });
    await run.execute();
    const of = (type: string) => run.ports.events.find((e) => e.type === type)!;
    expect(of('demo.contact')).toMatchObject({ producer: 'profile', dataClassification: 'confidential' });
    expect(of('demo.secret')).toMatchObject({ producer: 'profile', dataClassification: 'restricted' });
    expect(of('demo.plain')).toMatchObject({ producer: 'profile', dataClassification: 'internal' });
    expect(of('demo.asked')).toMatchObject({ producer: 'profile', dataClassification: 'confidential' });
  });

  it('a model call that fails for good is model.failed, then the run fails with its code', async () => {
    const run = fakeRun({
      eventEnvelope: { traceId: TRACE },
      model: () => {
        throw Object.assign(new Error('provider down'), { code: 'model.provider_unavailable' });
      },
      run: async (ctx) => ({
        output: (await ctx.model('decide', { messages: [{ role: 'user', content: 'q' }] })).text,
      }),
    });
    const final = await run.execute();
    expect(final).toMatchObject({ status: 'failed', terminalReason: { code: 'model.provider_unavailable' } });
    expect(run.ports.typesOf().slice(-4)).toEqual([
      'model.started',
      'model.failed',
      'state.transitioned',
      'run.failed',
    ]);
    expect(run.ports.events.find((e) => e.type === 'model.failed')?.data).toMatchObject({
      callSeq: 1,
      purpose: 'decide',
      code: 'model.provider_unavailable',
      message: 'provider down',
    });
  });
});

describe('classification from the field rules', () => {
  it('is the strictest rule of any key at any depth, undefined when no rule names a key', () => {
    expect(classifyFields({ a: 1, b: [{ c: 'x' }] }, DEFAULT_FIELD_RULES)).toBeUndefined();
    expect(classifyFields({ a: { address: 'x' } }, DEFAULT_FIELD_RULES)).toBe('confidential');
    expect(classifyFields({ email: 'x', list: [{ token: 't' }] }, DEFAULT_FIELD_RULES)).toBe('restricted');
    expect(classifyFields('text', DEFAULT_FIELD_RULES)).toBeUndefined();
  });

  it('never lowers the base classification', () => {
    expect(envelopeOf('run.completed', { status: 'succeeded' })).toEqual({
      producer: 'runner',
      classification: 'public',
    });
    expect(envelopeOf('run.completed', { idNumber: 'x' }).classification).toBe('confidential');
    expect(envelopeOf('tool.proposed', {}, 'restricted').classification).toBe('restricted');
  });
});
