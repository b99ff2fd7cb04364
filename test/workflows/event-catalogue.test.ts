import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/contract/agent-event.js';
import { EVENT_CATALOGUE } from '../../src/workflows/runner/event-catalogue.js';
import { projectRoot } from '../../src/devserver/config.js';
import { decide } from '../support/decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from '../support/harness.js';

const EVENTS_DOC = join(projectRoot, 'docs', 'events.md');
const REFUND = { message: 'My order ORD-1001 has not shipped for days, please refund', customerId: 'C1001' };
/** A model route whose script answers nothing: the first model call fails for good. */
const SILENT_ROUTE = 'scripted/silent';

/** The text of the `## <title>` section of docs/events.md (up to the next `## `). */
function section(doc: string, title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/events.md has no "## ${title}" section`);
  const rest = doc.slice(start + title.length + 5);
  const end = rest.indexOf('\n## ');
  return end < 0 ? rest : rest.slice(0, end);
}

/** The catalogue table of docs/events.md: type -> producer and base classification. */
function documentedCatalogue(doc: string): Map<string, { producer: string; classification: string }> {
  const rows = new Map<string, { producer: string; classification: string }>();
  for (const line of section(doc, 'Catalogue').split('\n')) {
    const m = /^\|\s*`([a-z_.]+)`\s*\|\s*`([a-z_]+)`\s*\|\s*`([a-z]+)`\s*\|/.exec(line);
    if (m) rows.set(m[1]!, { producer: m[2]!, classification: m[3]! });
  }
  return rows;
}

/**
 * The documented event sequence of the run `### <name>` in "## Event sequences": the types of its
 * text block in order, separated by spaces and lines; `#` starts a comment (the node of a line).
 */
function documentedSequence(doc: string, name: string): string[] {
  const text = section(doc, 'Event sequences');
  const start = text.indexOf(`\n### ${name}\n`);
  if (start < 0) throw new Error(`docs/events.md has no "### ${name}" run`);
  const block = /```text\n([\s\S]*?)```/.exec(text.slice(start));
  if (!block) throw new Error(`the "### ${name}" run has no text block`);
  return block[1]!
    .split('\n')
    .flatMap((l) => l.replace(/#.*$/, '').trim().split(/\s+/))
    .filter((t) => t !== '');
}

describe('the event catalogue (docs/events.md) on the real server', { timeout: 120_000 }, () => {
  let h: HarnessFixture;
  const doc = readFileSync(EVENTS_DOC, 'utf8');
  const catalogue = documentedCatalogue(doc);

  beforeAll(async () => {
    h = await createHarnessFixture('event-catalogue', { scripts: { [SILENT_ROUTE]: { entries: [] } } });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function envelopes(handle: WorkflowHandle): Promise<AgentEvent[]> {
    const stored = await h.composition.store.listEvents(handle.workflowId);
    return stored.map((e) => e.envelope as unknown as AgentEvent);
  }

  /** The run's stored events against the documented sequence and, event by event, the catalogue. */
  async function expectDocumented(handle: WorkflowHandle, name: string): Promise<AgentEvent[]> {
    const events = await envelopes(handle);
    expect(
      events.map((e) => e.type),
      name,
    ).toEqual(documentedSequence(doc, name));
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    // the harness's attempt of a graph node: from its step.started to its step.completed (or the end)
    let attempt: string | null = null;
    for (const e of events) {
      if (e.type === 'step.started')
        attempt = `${e.stepId}#${(e.data as { attempt: number }).attempt}@${e.sequence}`;
      expect(e.attemptId, `${name}: attemptId of #${e.sequence} ${e.type}`).toBe(attempt);
      if (e.type === 'step.completed') attempt = null;
      const documented = catalogue.get(e.type);
      expect(documented, `${name}: ${e.type} is in the catalogue`).toBeDefined();
      expect({ type: e.type, producer: e.producer, classification: e.dataClassification }).toEqual({
        type: e.type,
        ...documented,
      });
      // tracing is off in this worker: the trace id is the run id
      expect(e.traceId).toBe(handle.workflowId);
    }
    return events;
  }

  it('the documented catalogue is the runtime catalogue, type for type', () => {
    expect(Object.fromEntries(catalogue)).toEqual(EVENT_CATALOGUE);
  });

  it('a refund run that is approved and refunds', async () => {
    const handle = await h.start({ task: REFUND });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    expect(await handle.result()).toMatchObject({ status: 'succeeded', output: { outcome: 'refunded' } });
    const events = await expectDocumented(handle, 'Refund approved');
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-baseline3-approved-v1');
    const paused = events.find((e) => e.type === 'run.paused')!;
    expect(paused.data).toMatchObject({
      status: 'awaiting_confirmation',
      waitingReason: 'confirmation_required',
      actionId: waiting.pendingAction!.actionId,
      kind: 'confirmation',
    });
    expect(events.some((e) => e.type === 'model.requested')).toBe(false);
    // the Temporal attempt of the activity behind each outcome (no retries here: the first)
    const outcomes = events.filter((e) => e.type === 'model.completed' || e.type === 'tool.completed');
    expect(outcomes.length).toBe(6);
    for (const e of outcomes) expect(e.data, e.type).toMatchObject({ activityAttempt: 1 });
  });

  it('a run whose model call fails for good', async () => {
    const handle = await h.start({ task: REFUND, modelRoute: SILENT_ROUTE });
    expect(await handle.result()).toMatchObject({
      status: 'failed',
      terminalReason: { code: 'model.script_no_match' },
    });
    const events = await expectDocumented(handle, 'Failed');
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-baseline3-model-failed-v1');
    expect(events.find((e) => e.type === 'model.failed')?.data).toMatchObject({
      callSeq: 1,
      modelRoute: SILENT_ROUTE,
      code: 'model.script_no_match',
    });
  });

  it('a run cancelled while it waits for a person', async () => {
    const handle = await h.start({ task: REFUND });
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    // Cancel once the wait has begun: its events are stored (the flush activity completed) and the
    // workflow has taken that completion and started the wait's timer. A cancellation that arrives
    // while the run still stores them ends the run before the wait, without `human.decided`
    // (docs/events.md), and one that arrives with the flush's completion is taken with it.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const events = (await handle.fetchHistory()).events ?? [];
      let lastCompleted = -1;
      events.forEach((e, i) => {
        if (e.activityTaskCompletedEventAttributes) lastCompleted = i;
      });
      const stored = (await h.composition.store.listEvents(handle.workflowId)).some(
        (e) => e.type === 'run.paused',
      );
      if (stored && events.slice(lastCompleted + 1).some((e) => e.timerStartedEventAttributes)) break;
      if (Date.now() > deadline) throw new Error('the run never began its wait');
      await new Promise((r) => setTimeout(r, 100));
    }
    await decide(handle, 'cancelRun', { reason: 'customer withdrew' }, waiting);
    expect(await handle.result()).toMatchObject({ status: 'cancelled' });
    await expectDocumented(handle, 'Cancelled');
    await recordFixtureIfAsked(h.t.client, handle.workflowId, 'refund-graph-baseline3-cancelled-v1');
  });

  it('a run paused for a person (still waiting)', async () => {
    const handle = await h.start({ task: REFUND });
    await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    // the events of a pause are stored before the run waits; poll until the last one is there
    await expect
      .poll(async () => (await envelopes(handle)).at(-1)?.type, { timeout: 15_000 })
      .toBe('checkpoint.saved');
    await expectDocumented(handle, 'Paused');
    await handle.terminate('test done');
  });
});
