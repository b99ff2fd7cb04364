import { NO_PRINCIPALS } from '../../../src/activities/authz/principal-registry.js';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { benchNoopDefinition, benchNoopExecutor } from '../../../apps/bench/bench-noop-tool.js';
import { TOOLS_UNAVAILABLE } from '../../../src/contract/failure-types.js';
import { createRunActivities } from '../../../src/activities/run-activities.js';
import type { EvidenceStore } from '../../../src/activities/store/index.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import {
  orderReadV2Definition,
  rolloutExecutor,
  rolloutExtraDefinition,
} from '../../support/rollout-tools.js';

const ROUTE = 'scripted/test';
const CONFIG = `sha256:${'c'.repeat(64)}`;

function activitiesWith(register: (r: ToolRegistry) => void) {
  const registry = new ToolRegistry();
  register(registry);
  // loadToolSnapshot never touches the store.
  const store = {} as EvidenceStore;
  return createRunActivities({
    registry,
    store,
    defaultModelRoute: ROUTE,
    configDigest: CONFIG,
    principals: NO_PRINCIPALS,
  });
}

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe('loadToolSnapshot: per-tool pins', () => {
  const standard = activitiesWith((r) => r.register(benchNoopDefinition, benchNoopExecutor));

  it('pins the digest of the profile tools only, with the worker route and config', async () => {
    const snap = await standard.loadToolSnapshot({ names: ['bench.noop'] });
    expect(snap.definitions.map((d) => `${d.name}@${d.version}`)).toEqual(['bench.noop@v1']);
    expect(snap.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(snap).toMatchObject({ defaultModelRoute: ROUTE, configDigest: CONFIG });
    // A worker with an extra tool and another version of an unrelated tool pins the same digest.
    const next = activitiesWith((r) => {
      r.register(benchNoopDefinition, benchNoopExecutor);
      r.register(rolloutExtraDefinition, rolloutExecutor);
      r.register(orderReadV2Definition, rolloutExecutor);
    });
    const again = await next.loadToolSnapshot({ names: ['bench.noop'], toolsDigest: snap.digest });
    expect(again.digest).toBe(snap.digest);
  });

  it('refuses, non-retryable worker.tools_unavailable, another definition or a missing tool', async () => {
    const { digest } = await standard.loadToolSnapshot({ names: ['bench.noop'] });
    const changed = activitiesWith((r) =>
      r.register({ ...benchNoopDefinition, description: 'changed without a new version' }, benchNoopExecutor),
    );
    const differs = await failureOf(changed.loadToolSnapshot({ names: ['bench.noop'], toolsDigest: digest }));
    expect(differs).toMatchObject({ type: TOOLS_UNAVAILABLE, nonRetryable: true });
    expect(differs.message).toContain('bench.noop@v1');
    const empty = activitiesWith(() => undefined);
    const missing = await failureOf(empty.loadToolSnapshot({ names: ['bench.noop'] }));
    expect(missing).toMatchObject({ type: TOOLS_UNAVAILABLE, nonRetryable: true });
  });

  it('keeps the whole-registry rule for runs that pinned it (older clients)', async () => {
    const whole = await standard
      .loadToolSnapshot({ names: ['bench.noop'], expectedDigest: `sha256:${'0'.repeat(64)}` })
      .catch((e: unknown) => e as ApplicationFailure);
    expect(whole).toMatchObject({ type: 'run.registry_mismatch', nonRetryable: true });
  });
});
