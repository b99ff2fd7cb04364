import { ApplicationFailure } from '@temporalio/common';
import type { ToolDefinition } from '../../contract/tool.js';
import type { ToolRegistry } from '../tools/index.js';
import type { PackedEvents } from '../../core/runner/packed-events.js';
import type { EvidenceStore } from '../store/index.js';
import { storeEvents } from './store-events.js';

export interface RunActivityDeps {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
}

export interface ToolSnapshotRequest {
  readonly expectedDigest: string;
  /** The profile's tools (`name` or `name@version`). */
  readonly names: readonly string[];
}

/** Activities that serve the run itself: the pinned tool snapshot and event writes. */
export function createRunActivities(deps: RunActivityDeps) {
  return {
    /**
     * The model-visible definitions of the profile's tools, from this worker's registry. Fails
     * (non-retryable `run.registry_mismatch`) when the worker's registry digest is not the one the run
     * pinned: a run never silently uses different tools than it started with.
     */
    loadToolSnapshot(
      req: ToolSnapshotRequest,
    ): Promise<{ definitions: readonly ToolDefinition[]; digest: string }> {
      const full = deps.registry.snapshot();
      if (full.digest !== req.expectedDigest) {
        throw ApplicationFailure.create({
          type: 'run.registry_mismatch',
          nonRetryable: true,
          message: `this worker's tool registry is ${full.digest}, the run pinned ${req.expectedDigest}`,
        });
      }
      return Promise.resolve({
        definitions: deps.registry.snapshot(req.names).definitions,
        digest: full.digest,
      });
    },

    /** Store events exactly once (unique by run and sequence). */
    async recordEvents(events: PackedEvents): Promise<void> {
      await storeEvents(deps.store, events);
    },
  };
}
