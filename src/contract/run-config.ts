import { z } from 'zod';
import { DigestSchema } from './bundles.js';

/**
 * What a run's **config pin** covers (runs since `agent-run-config-pin-v1`, docs/rolling-deploys.md):
 * the worker configuration that can change this run's behaviour and that no other pin covers, named
 * so that any worker can look it up in its own configuration. Never the whole worker configuration: a
 * worker with more tools, routes or bundles than the run uses serves it. The profile's tool
 * definitions are not in it: the tool pin (`toolRegistryDigest`, at every generation's start) and each
 * call's `definitionDigest` cover them, so a worker that changed one tool still serves the others. Nor
 * are the run's bundles: their content is resolved at each generation's start into the history (and
 * refused there, `bundle.not_found`, `bundle.changed`); no activity reads a worker's bundles.
 */
export interface RunConfigScope {
  /** The model route the run pinned (`versions.modelRoute`): its definition on the worker. */
  readonly modelRoute: string;
}

/**
 * A run's config pin: its {@link RunConfigScope} and the digest of what the worker that served the
 * run's first start had under it (`runConfigDigest`, src/activities/run-config-digest.ts). Recorded as
 * the run's `versions.configDigest`; every tool and model call of the run carries it
 * (`ToolCallInput.configPin`, `ModelCallInput.configPin`) and a worker whose configuration under the
 * scope has another digest refuses the call, non-retryable, before anything is recorded
 * (`worker.config_changed`).
 */
export interface RunConfigPin extends RunConfigScope {
  readonly digest: string;
}

/**
 * A config pin as a run carries it to its next generation, checked like any carried value: bounded,
 * well-formed. Built on first use (see builtOnFirstUse).
 */
export const RunConfigPinSchema = z.lazy(() =>
  z.strictObject({
    digest: DigestSchema,
    modelRoute: z.string().min(1).max(200),
  }),
);
