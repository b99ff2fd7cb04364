import { describe, expect, it } from 'vitest';
import {
  carriedDigest,
  carriedStateRefusal,
  sealCarried,
  unsupportedStartRefusal,
  type GenerationInfo,
} from '../../../../src/workflows/temporal/carried-origin.js';
import type { CarriedRun } from '../../../../src/workflows/temporal/carried-run.js';
import type { RunState } from '../../../../src/workflows/runner/run-state.js';

const previous: GenerationInfo = { runId: 'run-1', firstExecutionRunId: 'run-0', attempt: 1 };
const next: GenerationInfo = {
  runId: 'run-2',
  firstExecutionRunId: 'run-0',
  continuedFromExecutionRunId: 'run-1',
  attempt: 1,
};
const envelope = {
  schemaVersion: 1,
  state: { runId: 'wf', facts: { 'order.owner_verified': true } } as unknown as RunState,
} satisfies Omit<CarriedRun, 'origin'>;

describe('carried state is bound to the generation that handed it over', () => {
  it('the next generation of the same run takes it', () => {
    const sealed = sealCarried(envelope, previous);
    expect(sealed.origin).toEqual({
      runId: 'run-1',
      firstExecutionRunId: 'run-0',
      digest: carriedDigest(envelope),
    });
    expect(carriedStateRefusal(sealed, next)).toBeUndefined();
    // Through JSON, as Temporal hands it over.
    expect(carriedStateRefusal(JSON.parse(JSON.stringify(sealed)) as CarriedRun, next)).toBeUndefined();
  });

  it('a start that nothing continued into takes none (a direct start, signal-with-start, a Schedule)', () => {
    const refusal = carriedStateRefusal(sealCarried(envelope, previous), {
      runId: 'run-9',
      firstExecutionRunId: 'run-9',
      attempt: 1,
    });
    expect(refusal).toEqual({
      continued: false,
      message: expect.stringContaining('continue-as-new') as string,
    });
  });

  it('a cron run and a workflow retry take none, sealed or not', () => {
    for (const carried of [envelope, sealCarried(envelope, previous)]) {
      expect(carriedStateRefusal(carried, { ...next, cronSchedule: '@every 2s' })?.message).toContain('cron');
      expect(carriedStateRefusal(carried, { ...next, attempt: 2 })?.message).toContain('retry');
    }
  });

  it('another generation, another run or changed content is refused', () => {
    const sealed = sealCarried(envelope, previous);
    expect(carriedStateRefusal(sealed, { ...next, continuedFromExecutionRunId: 'run-x' })?.message).toContain(
      'another execution',
    );
    expect(carriedStateRefusal(sealed, { ...next, firstExecutionRunId: 'run-y' })?.message).toContain(
      'another run',
    );
    const edited = { ...sealed, state: { ...sealed.state, facts: { 'order.owner_verified': false } } };
    expect(carriedStateRefusal(edited as CarriedRun, next)?.message).toContain('digest');
    expect(carriedStateRefusal({ ...sealed, origin: 'x' } as unknown as CarriedRun, next)?.message).toContain(
      'malformed',
    );
    const notJson = { ...sealed, state: { runId: 'wf', n: Number.NaN } } as unknown as CarriedRun;
    expect(carriedStateRefusal(notJson, next)?.message).toContain('not JSON');
  });

  it('an envelope from a build before the binding (no origin) is taken on a plain continue-as-new', () => {
    expect(carriedStateRefusal(envelope, next)).toBeUndefined();
  });
});

describe('agentRun refuses cron schedules and workflow retry policies', () => {
  it('names the way to do it instead', () => {
    expect(unsupportedStartRefusal({ ...previous, cronSchedule: '* * * * *' })).toMatchObject({
      type: 'run.cron_unsupported',
      message: expect.stringContaining('Temporal Schedule') as string,
    });
    expect(unsupportedStartRefusal({ ...previous, retryPolicy: { maximumAttempts: 3 } })).toMatchObject({
      type: 'run.retry_unsupported',
    });
    expect(unsupportedStartRefusal(previous)).toBeUndefined();
    expect(unsupportedStartRefusal({ ...previous, cronSchedule: '' })).toBeUndefined();
  });
});
