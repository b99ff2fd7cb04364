import { describe, expect, it } from 'vitest';
import type { SharedStore } from './contract.js';
import { event, expectCode, newRunId, RUN_VERSIONS } from './fixtures.js';

/** The EvidenceStore contract, part: Events read back: runs by tenant and window, failure samples, listing in seq order. */
export function describeEventQueriesContract({ store }: SharedStore): void {
  describe('events', () => {
    it('records the tenant and user a run was started for, and lists runs of one tenant only', async () => {
      const versions = RUN_VERSIONS;
      const startRun = async (tenantId?: string) => {
        const run = newRunId('tenant');
        const at = '2026-01-01T00:00:00.000Z';
        const data = tenantId ? { tenantId, userId: `u-${tenantId}` } : {};
        const created = event(run, 0, { type: 'run.created', data: { versions }, occurredAt: at });
        const started = event(run, 1, { type: 'run.started', data, occurredAt: at });
        await store.appendEvents([
          { ...created, envelope: { ...created.envelope, type: 'run.created', versions } },
          { ...started, envelope: { ...started.envelope, type: 'run.started', data, versions } },
        ]);
        return run;
      };
      const acme = await startRun('acme');
      const globex = await startRun('globex');
      const none = await startRun();
      expect(await store.getRun(acme)).toMatchObject({ tenantId: 'acme', userId: 'u-acme' });
      expect((await store.getRun(none))?.tenantId).toBeUndefined();
      const ofAcme = (await store.listRuns({ tenantId: 'acme', limit: 5000 })).map((r) => r.runId);
      expect(ofAcme).toContain(acme);
      expect(ofAcme).not.toContain(globex);
      expect(ofAcme).not.toContain(none);
      expect(
        (await store.listRuns({ tenantId: 'globex', limit: 5000 })).every((r) => r.tenantId === 'globex'),
      ).toBe(true);
    });

    it('lists the runs created in a window (from inclusive, before exclusive), and refuses a time without offset', async () => {
      const versions = RUN_VERSIONS;
      const startAt = async (at: string) => {
        const run = newRunId('window');
        const created = event(run, 0, { type: 'run.created', data: { versions }, occurredAt: at });
        await store.appendEvents([
          { ...created, envelope: { ...created.envelope, type: 'run.created', versions } },
        ]);
        return run;
      };
      const early = await startAt('2031-05-01T09:59:59.999Z');
      const first = await startAt('2031-05-01T10:00:00.000Z');
      const last = await startAt('2031-05-01T10:59:59.999Z');
      const late = await startAt('2031-05-01T11:00:00.000Z');
      const inWindow = (
        await store.listRuns({
          // An offset other than Z names the same instant.
          createdFrom: '2031-05-01T12:00:00+02:00',
          createdBefore: '2031-05-01T11:00:00Z',
          limit: 5000,
        })
      ).map((r) => r.runId);
      expect(inWindow).toContain(first);
      expect(inWindow).toContain(last);
      expect(inWindow).not.toContain(early);
      expect(inWindow).not.toContain(late);
      await expectCode(store.listRuns({ createdFrom: '2031-05-01 10:00' }), 'store.invalid_record');
    });

    it('stores a failure sample with the terminal event of a failed, budget-exhausted or guardrail-blocked run, and none for a run that succeeded', async () => {
      const versions = RUN_VERSIONS;
      const tag = newRunId('fs');
      const endRun = async (
        suffix: string,
        type: string,
        data: Record<string, unknown>,
        endedAt: string,
      ): Promise<string> => {
        const run = `${tag}-${suffix}`;
        const mk = (seq: number, t: string, d: Record<string, unknown>, at: string) => {
          const e = event(run, seq, { type: t, data: d, occurredAt: at });
          return { ...e, envelope: { ...e.envelope, type: t, data: d, versions } };
        };
        await store.appendEvents([
          mk(0, 'run.created', { versions }, '2026-02-01T00:00:00.000Z'),
          mk(1, 'run.started', { tenantId: 'acme', userId: 'u1' }, '2026-02-01T00:00:00.000Z'),
        ]);
        const end = mk(2, type, data, endedAt);
        await store.appendEvents([end]);
        await store.appendEvents([end]); // a retried flush stores nothing twice
        return run;
      };
      const failed = await endRun(
        'failed',
        'run.failed',
        { status: 'failed', reason: { code: 'completion.not_satisfied', message: 'no verification' } },
        '2026-02-01T00:00:05.000Z',
      );
      const budget = await endRun(
        'budget',
        'run.failed',
        {
          status: 'budget_exhausted',
          reason: { code: 'budget.max_steps', message: 'steps' },
          budget: { steps: 3 },
        },
        '2026-02-02T00:00:05.000Z',
      );
      const guarded = await endRun(
        'guard',
        'run.failed',
        { status: 'failed', reason: { code: 'guardrail.input_blocked', message: 'blocked' } },
        '2026-02-03T00:00:05.000Z',
      );
      const ok = await endRun('ok', 'run.completed', { status: 'succeeded' }, '2026-02-03T00:00:06.000Z');
      const cancelled = await endRun(
        'cancel',
        'run.cancelled',
        { status: 'cancelled', reason: { code: 'run.cancelled', message: 'by op' } },
        '2026-02-03T00:00:07.000Z',
      );
      expect(await store.getFailureSample(failed)).toEqual({
        runId: failed,
        reason: 'failed',
        status: 'failed',
        code: 'completion.not_satisfied',
        message: 'no verification',
        versions,
        createdAt: '2026-02-01T00:00:00.000Z',
        endedAt: '2026-02-01T00:00:05.000Z',
        terminalSeq: 2,
        budget: null,
        tenantId: 'acme',
        userId: 'u1',
      });
      expect(await store.getFailureSample(budget)).toMatchObject({
        reason: 'budget_exhausted',
        status: 'budget_exhausted',
        code: 'budget.max_steps',
        budget: { steps: 3 },
      });
      expect(await store.getFailureSample(guarded)).toMatchObject({
        reason: 'guardrail_blocked',
        code: 'guardrail.input_blocked',
      });
      expect(await store.getFailureSample(ok)).toBeUndefined();
      expect(await store.getFailureSample(cancelled)).toBeUndefined();
      const ours = (list: { runId: string }[]) => list.map((r) => r.runId).filter((id) => id.startsWith(tag));
      expect(ours(await store.listFailureSamples({ limit: 5000 }))).toEqual([guarded, budget, failed]);
      expect(ours(await store.listFailureSamples({ reason: 'budget_exhausted', limit: 5000 }))).toEqual([
        budget,
      ]);
      expect(
        ours(await store.listFailureSamples({ since: '2026-02-02T01:00:00+01:00', limit: 5000 })),
      ).toEqual([guarded, budget]);
      expect(ours(await store.listFailureSamples({ tenantId: 'acme', limit: 5000 }))).toHaveLength(3);
      await expectCode(store.listFailureSamples({ since: 'yesterday' }), 'store.invalid_record');
      await expectCode(store.listFailureSamples({ reason: 'oops' as 'failed' }), 'store.invalid_record');
    });

    it('lists in seq order and pages with afterSeq and limit', async () => {
      const run = newRunId();
      const other = newRunId();
      for (const seq of [3, 0, 7, 1, 4, 2, 6, 5]) await store.appendEvent(event(run, seq));
      await store.appendEvent(event(other, 0));
      expect((await store.listEvents(run)).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      const seen: number[] = [];
      let after: number | undefined;
      for (;;) {
        const page = await store.listEvents(run, { afterSeq: after, limit: 3 });
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page.map((e) => e.seq));
        after = page[page.length - 1]?.seq;
      }
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(await store.listEvents(run, { afterSeq: 7 })).toEqual([]);
      expect((await store.listEvents(other)).map((e) => e.eventId)).toEqual([`${other}-ev-0`]);
    });
  });
}
