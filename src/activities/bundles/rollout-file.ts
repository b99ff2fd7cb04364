import { z } from 'zod';
import { BundleKeySchema } from '../../contract/bundles.js';
import { ModelRouteKeySchema } from '../../contract/model-routes.js';

/** What one arm of a rollout pins: bundle versions (each fills its own profile or policy) and a route. */
const ArmShape = {
  /** Prompt bundles (`name@vN`), at most one per profile. */
  prompts: z.array(BundleKeySchema).max(100).default([]),
  /** Policy bundles (`name@vN`), at most one per policy. */
  policies: z.array(BundleKeySchema).max(100).default([]),
  /** A model route version of the worker's routes file (docs/models.md) for every purpose. */
  modelRoute: ModelRouteKeySchema.optional(),
};

/**
 * Percent of new runs sent to the candidate: 0..100 with at most two decimals (a run's bucket is one
 * of 10,000).
 */
const PercentSchema = z
  .number()
  .min(0)
  .max(100)
  .refine((p) => Math.abs(p * 100 - Math.round(p * 100)) < 1e-9, 'at most two decimals');

/**
 * The rollout config (`rollout.yaml` in the bundles folder, docs/control-plane.md): the stable arm,
 * and optionally a candidate that `percent` of new runs get. The candidate's entries replace the
 * stable arm's for the same profile or policy; what it does not name stays stable.
 */
export const RolloutFileSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** Names the rollout; the salt of the arm assignment (a new id reshuffles which runs are candidates). */
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'expected letters, digits, . _ -'),
  stable: z.strictObject(ArmShape).prefault({}),
  candidate: z.strictObject({ ...ArmShape, percent: PercentSchema }).optional(),
});
export type RolloutFile = z.output<typeof RolloutFileSchema>;
