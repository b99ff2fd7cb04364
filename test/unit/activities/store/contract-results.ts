import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../../src/activities/digest.js';
import type { SharedStore } from './contract.js';
import { expectCode, intent, modelArtifact, newRunId, observed, result } from './fixtures.js';

/** The EvidenceStore contract, part: Results and the artifacts recorded with them or apart from them. */
export function describeResultsContract({ store, getTarget, open }: SharedStore): void {
  describe('results', () => {
    it('needs a matching intent', async () => {
      const run = newRunId();
      await expectCode(store.recordResult(result(run, 1), []), 'store.no_intent');
      await store.recordIntent(intent(run, 1));
      await expectCode(store.recordResult(result(run, 1, { attempt: 2 }), []), 'store.no_intent');
      expect((await store.getInvocation(run, 1))?.results).toEqual([]);
    });

    it('writes the result and its artifacts together, with digests and placement', async () => {
      const run = newRunId();
      await store.recordIntent(intent(run, 1));
      await store.recordResult(result(run, 1, { artifactIds: [`${run}-a`] }), [observed(`${run}-a`)]);
      expect((await store.getInvocation(run, 1))?.result).toEqual(
        result(run, 1, { artifactIds: [`${run}-a`] }),
      );
      const art = await store.getArtifact(`${run}-a`);
      expect(art).toMatchObject({ ...observed(`${run}-a`), runId: run, seq: 1, attempt: 1 });
      expect(art?.digest).toBe(sha256Digest({ refundId: 'rf-1' }));
    });

    it('is atomic: a failing artifact mid-transaction leaves no result and no other artifact', async () => {
      const run = newRunId();
      const taken = `${run}-taken`;
      await store.putArtifact({
        runId: run,
        artifact: modelArtifact(taken),
        recordedAt: '2026-01-01T00:00:00.000Z',
      });
      await store.recordIntent(intent(run, 1));
      const ids = [`${run}-new`, taken];
      await expectCode(
        store.recordResult(result(run, 1, { artifactIds: ids }), [
          observed(`${run}-new`),
          observed(taken, { other: true }),
        ]),
        'store.conflict',
      );
      expect((await store.getInvocation(run, 1))?.results).toEqual([]);
      expect(await store.getArtifact(`${run}-new`)).toBeUndefined();
      expect((await store.getArtifact(taken))?.provenance).toBe('model');
      // A listed id that exists nowhere also fails after the result row was written: still nothing kept.
      await expectCode(
        store.recordResult(result(run, 1, { artifactIds: [`${run}-ghost`] }), []),
        'store.invalid_record',
      );
      expect((await store.getInvocation(run, 1))?.results).toEqual([]);
      await store.recordResult(result(run, 1, { artifactIds: [`${run}-new`] }), [observed(`${run}-new`)]);
      expect((await store.getInvocation(run, 1))?.result?.artifactIds).toEqual([`${run}-new`]);
    });

    it('lets the first result win; an identical repeat is a no-op', async () => {
      const run = newRunId();
      await store.recordIntent(intent(run, 1));
      const first = result(run, 1, { artifactIds: [`${run}-a`] });
      await store.recordResult(first, [observed(`${run}-a`)]);
      await store.recordResult({ ...first, recordedAt: '2026-03-03T00:00:00.000Z' }, [observed(`${run}-a`)]);
      await expectCode(
        store.recordResult(result(run, 1, { status: 'failed_terminal', artifactIds: [] }), []),
        'store.conflict',
      );
      await expectCode(
        store.recordResolution({
          ...result(run, 1, { status: 'not_applied' }),
          source: 'operator',
          evidence: { note: 'x' },
        }),
        'store.conflict',
      );
      expect((await store.getInvocation(run, 1))?.results).toEqual([first]);
    });

    it('records an operator or reconciler resolution of an unknown outcome with its evidence', async () => {
      const run = newRunId();
      await store.recordIntent(intent(run, 1));
      const resolution = {
        ...result(run, 1, { status: 'not_applied' as const, output: undefined, externalId: undefined }),
        source: 'operator' as const,
        evidence: { checkedBy: 'ops@example', refundList: [] },
      };
      await store.recordResolution(resolution);
      const got = await store.getInvocation(run, 1);
      expect(got?.result?.source).toBe('operator');
      expect(got?.result?.evidence).toEqual({ checkedBy: 'ops@example', refundList: [] });
      await expectCode(
        store.recordResolution({ ...resolution, source: 'executor' as 'operator' }),
        'store.invalid_record',
      );
    });

    it('serialises two stores racing different results: exactly one wins', async () => {
      const at = getTarget().freshUrl();
      const [a, b] = [await open(at), await open(at)];
      const run = newRunId();
      await a.recordIntent(intent(run, 1));
      const outcomes = await Promise.allSettled([
        a.recordResult(result(run, 1, { status: 'succeeded' }), []),
        b.recordResult(result(run, 1, { status: 'failed_terminal' }), []),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const winner = outcomes[0]?.status === 'fulfilled' ? 'succeeded' : 'failed_terminal';
      expect((await b.getInvocation(run, 1))?.result?.status).toBe(winner);
    });
  });

  describe('artifacts outside results', () => {
    it('stores model artifacts only, idempotently, listed by run', async () => {
      const run = newRunId();
      const stored = await store.putArtifact({
        runId: run,
        seq: 4,
        artifact: modelArtifact(`${run}-p`),
        recordedAt: '2026-01-01T00:00:00.000Z',
      });
      expect(stored).toMatchObject({
        id: `${run}-p`,
        seq: 4,
        attempt: null,
        digest: sha256Digest({ plan: 'refund order o-1' }),
      });
      await store.putArtifact({
        runId: run,
        seq: 4,
        artifact: modelArtifact(`${run}-p`),
        recordedAt: '2026-05-05T00:00:00.000Z',
      });
      await expectCode(
        store.putArtifact({
          runId: run,
          artifact: modelArtifact(`${run}-p`, { plan: 'other' }),
          recordedAt: '2026-01-01T00:00:00.000Z',
        }),
        'store.conflict',
      );
      await expectCode(
        store.putArtifact({
          runId: run,
          artifact: observed(`${run}-o`),
          recordedAt: '2026-01-01T00:00:00.000Z',
        }),
        'store.invalid_record',
      );
      await store.putArtifact({
        runId: run,
        artifact: modelArtifact(`${run}-q`),
        recordedAt: '2026-01-01T00:00:00.000Z',
      });
      expect((await store.listArtifacts(run)).map((a) => a.id)).toEqual([`${run}-q`, `${run}-p`]);
    });
  });
}
