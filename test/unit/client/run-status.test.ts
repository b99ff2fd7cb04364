import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { getRunView, waitForStatus, type RunHandle } from '../../../src/client/run-status.js';
import type { RunView } from '../../../src/contract/run-view.js';

/** A handle whose `state` query answers `answers` in turn (the last one repeats), still running. */
function fakeHandle(answers: readonly unknown[], closed: string[] = []): RunHandle & { queries: number } {
  const h = {
    workflowId: 'wf-fake',
    queries: 0,
    query: (() => {
      const a = answers[Math.min(h.queries, answers.length - 1)];
      h.queries += 1;
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
    }) as RunHandle['query'],
    describe: (() =>
      Promise.resolve({
        status: { name: closed[Math.min(h.queries, closed.length - 1)] ?? 'RUNNING' },
      })) as unknown as RunHandle['describe'],
  };
  return h;
}

const view = (status: string) => ({ status, runId: 'wf-fake' }) as unknown as RunView;

describe('getRunView and waitForStatus (no server)', () => {
  it('reads no view from an empty, missing or failing state answer', async () => {
    expect(await getRunView(fakeHandle([undefined]))).toBeUndefined();
    expect(await getRunView(fakeHandle([null]))).toBeUndefined();
    expect(await getRunView(fakeHandle([{}]))).toBeUndefined();
    expect(await getRunView(fakeHandle([{ status: 'dancing' }]))).toBeUndefined();
    expect(await getRunView(fakeHandle([new Error('query handler not registered')]))).toBeUndefined();
    expect(await getRunView(fakeHandle([view('running')]))).toMatchObject({ status: 'running' });
    await expect(
      getRunView(fakeHandle([new WorkflowNotFoundError('no such workflow', 'wf-fake', undefined)])),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('waits past empty answers until a wanted status', async () => {
    const h = fakeHandle([undefined, {}, new Error('not yet'), view('running'), view('awaiting_input')]);
    const v = await waitForStatus(h, ['awaiting_confirmation', 'awaiting_input'], {
      timeoutMs: 5_000,
      pollMs: 5,
    });
    expect(v.status).toBe('awaiting_input');
    expect(h.queries).toBe(5);
  });

  it('refuses a wait that cannot mean anything', async () => {
    const h = fakeHandle([view('running')]);
    await expect(waitForStatus(h, [], { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'run.wait_invalid',
    });
    await expect(waitForStatus(h, ['bogus'] as never, { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'run.wait_invalid',
    });
    await expect(waitForStatus(h, 'running', { timeoutMs: 0 })).rejects.toMatchObject({
      code: 'run.wait_invalid',
    });
  });

  it('times out naming the last status seen, or none', async () => {
    await expect(
      waitForStatus(fakeHandle([view('running')]), 'succeeded', { timeoutMs: 60, pollMs: 10 }),
    ).rejects.toMatchObject({
      code: 'run.wait_timeout',
      message: expect.stringContaining('last status: running') as string,
      details: expect.objectContaining({ lastStatus: 'running' }) as object,
    });
    await expect(
      waitForStatus(fakeHandle([undefined]), 'succeeded', { timeoutMs: 60, pollMs: 10 }),
    ).rejects.toMatchObject({
      code: 'run.wait_timeout',
      details: expect.objectContaining({ lastStatus: null }) as object,
    });
    // a query that never answers does not hold the wait past its timeout
    const hanging = {
      ...fakeHandle([]),
      query: () => new Promise<never>(() => undefined),
    } as unknown as RunHandle;
    const started = Date.now();
    await expect(waitForStatus(hanging, 'succeeded', { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'run.wait_timeout',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails at once when the run ends in another status, or its workflow closes', async () => {
    await expect(
      waitForStatus(fakeHandle([view('running'), view('failed')]), 'awaiting_confirmation', {
        timeoutMs: 5_000,
        pollMs: 5,
      }),
    ).rejects.toMatchObject({
      code: 'run.closed_in_other_status',
      details: expect.objectContaining({ status: 'failed' }) as object,
    });
    // terminated while it waited: the view still says awaiting_confirmation, the execution is closed
    await expect(
      waitForStatus(fakeHandle([view('awaiting_confirmation')], ['RUNNING', 'TERMINATED']), 'succeeded', {
        timeoutMs: 5_000,
        pollMs: 5,
      }),
    ).rejects.toMatchObject({
      code: 'run.closed_in_other_status',
      message: expect.stringContaining(
        'closed in TERMINATED (last run status awaiting_confirmation)',
      ) as string,
    });
  });
});
