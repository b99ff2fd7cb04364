import type { BundlePin } from '../../contract/bundles.js';
import type { ModelRoutePlan } from '../../contract/model-routes.js';
import type { DecisionAuthority } from '../authz/decision-authority.js';
import type { RunIdentity } from '../authz/start-token.js';
import { boundCarriedState } from '../runner/carried-bounds.js';
import { eventsToCarry } from '../runner/carried-events.js';
import type { RunState } from '../runner/run-state.js';
import type { Runner } from '../runner/runner.js';
import type { CarriedRun } from './carried-run.js';
import type { RunConfigPin } from '../../contract/run-config.js';

/**
 * What this generation carries to the next on continue-as-new (before it is sealed to this
 * generation): its state (bounded when `bounded`), decision state, identity, the gate's wait, pins,
 * and the events emitted after its last flush. Call it last, after the last flush and once every
 * handler has finished: a decision accepted while the events were stored goes with the run, and so
 * does the record of a signal refused meanwhile (stored by the next generation). Records nothing;
 * when events are left out, `state.nextEventSeq` becomes the first one's, so the sequence stays gap-free.
 *
 * Failure semantics: none of its own (pure reads of the run's in-memory state).
 */
export function nextGeneration(o: {
  readonly runner: Runner;
  readonly state: RunState;
  /** The bounded carry patch's answer (asked before the last flush). */
  readonly bounded: boolean;
  readonly authority: DecisionAuthority | undefined;
  readonly identity: RunIdentity | undefined;
  readonly modelRoutes: ModelRoutePlan | undefined;
  readonly bundles: { readonly pin: BundlePin } | undefined;
  /** The run's config pin, carried as it was pinned. */
  readonly configPin?: RunConfigPin | undefined;
}): CarriedRun {
  const { runner, state, authority, identity, modelRoutes, bundles, configPin } = o;
  // Read last: a decision accepted while the events were stored goes with the run, and so does the
  // record of a signal refused meanwhile (stored by the next generation).
  const gate = runner.gate.carry();
  const late = eventsToCarry(runner.takeLateEvents());
  const factVersions = runner.evidence.versions.carry();
  // Events past the carried bounds are left out; they were the last ones: the sequence stays gap-free.
  if (late.nextEventSeq !== undefined) state.nextEventSeq = late.nextEventSeq;
  return {
    schemaVersion: 1,
    state: o.bounded ? boundCarriedState(state) : state,
    ...(authority ? { authz: authority.carry() } : {}),
    ...(identity ? { identity } : {}),
    ...(gate ? { gate } : {}),
    ...(modelRoutes ? { models: modelRoutes } : {}),
    ...(bundles ? { bundles: bundles.pin } : {}),
    ...(late.events ? { events: late.events } : {}),
    ...(factVersions ? { factVersions } : {}),
    ...(configPin ? { configPin } : {}),
  };
}
