import { z } from 'zod';
import { ModelRouteKeySchema } from './model-routes.js';

/**
 * A versioned control-plane bundle: `name@vN`, e.g. `refund-prompt@v2` (docs/control-plane.md). A
 * version never changes once a run may have pinned it; a change is a new version.
 */
export const BUNDLE_KEY = /^[a-z0-9][a-z0-9._-]{0,79}@v[1-9][0-9]{0,5}$/;

/** A {@link BUNDLE_KEY} as a schema. Built on first use (see builtOnFirstUse). */
export const BundleKeySchema = z.lazy(() =>
  z
    .string()
    .regex(
      BUNDLE_KEY,
      'expected a versioned bundle name like refund-prompt@v2 (lowercase name, @v, a number)',
    ),
);

/**
 * A profile or policy a bundle fills: `name@version` as registered in the workflow composition. Built
 * on first use (see builtOnFirstUse).
 */
export const BundleTargetSchema = z.lazy(() =>
  z
    .string()
    .regex(
      /^[a-z][a-z0-9_.-]{0,63}@[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$/,
      'expected name@version, e.g. refund.rules@v1',
    ),
);

/** Built on first use (see builtOnFirstUse). */
export const DigestSchema = z.lazy(() =>
  z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 hex>'),
);

/** The two arms of a rollout: the stable release and the candidate a percentage of new runs get. */
export const ROLLOUT_ARMS = ['stable', 'candidate'] as const;
/** One of {@link ROLLOUT_ARMS}. Built on first use (see builtOnFirstUse). */
export const RolloutArmSchema = z.lazy(() => z.enum(ROLLOUT_ARMS));
export type RolloutArm = z.infer<typeof RolloutArmSchema>;

/** Rollout buckets: a run's bucket is in 0..9999; a percentage with two decimals covers whole buckets. */
export const ROLLOUT_BUCKETS = 10_000;

/**
 * One bundle a run pinned: its version, the digest of its canonical content, and what it fills. Built on
 * first use (see builtOnFirstUse).
 */
export const BundleRefSchema = z.lazy(() =>
  z.strictObject({
    key: BundleKeySchema,
    digest: DigestSchema,
    /** The profile (prompt bundles) or policy (policy bundles) whose in-code content it replaces. */
    target: BundleTargetSchema,
  }),
);
export type BundleRef = z.infer<typeof BundleRefSchema>;

/**
 * What a run pins of the control plane at its first start (in `run.created.bundles`, carried across
 * continue-as-new): the rollout arm it was assigned and the bundle versions of that arm that apply to
 * its profile and policy. Never content: a later generation asks a worker to resolve the pin.
 *
 * Built on first use (see builtOnFirstUse).
 */
export const BundlePinSchema = z.lazy(() =>
  z.strictObject({
    /** The rollout config's id (the salt of the arm assignment). */
    rollout: z.string().min(1).max(80),
    arm: RolloutArmSchema,
    /** The run's bucket (0..9999) and the candidate share at its start: candidate iff bucket < percent*100. */
    bucket: z
      .number()
      .int()
      .min(0)
      .max(ROLLOUT_BUCKETS - 1),
    candidatePercent: z.number().min(0).max(100),
    /** The prompt bundle of the run's profile, when the arm has one (else the profile's own instructions). */
    prompt: BundleRefSchema.optional(),
    /** The policy bundle of the run's policy, when the arm has one (else the policy in code). */
    policy: BundleRefSchema.optional(),
    /** The model route version of the arm, when the rollout names one and the starter named none. */
    modelRoute: ModelRouteKeySchema.optional(),
  }),
);
export type BundlePin = z.infer<typeof BundlePinSchema>;

/** Most characters of a prompt bundle's instructions. */
export const MAX_INSTRUCTIONS_CHARS = 32_000;

/**
 * A pin with the content it names, as a worker resolved it (the result of the start's local
 * activity, in history). `policy.data` is rules-policy data (docs/policies.md) the workflow builds a
 * `RulesPolicy` from; it was validated by the worker when it loaded the bundle.
 *
 * Built on first use (see builtOnFirstUse).
 */
export const ResolvedBundlesSchema = z.lazy(() =>
  z.strictObject({
    pin: BundlePinSchema,
    prompt: z.strictObject({ instructions: z.string().min(1).max(MAX_INSTRUCTIONS_CHARS) }).optional(),
    policy: z.strictObject({ data: z.record(z.string(), z.unknown()) }).optional(),
  }),
);
export type ResolvedBundles = z.infer<typeof ResolvedBundlesSchema>;

/** What the workflow asks at a first start: the run's id (the arm's key) and the slots bundles may fill. */
export interface BundleSlots {
  readonly workflowId: string;
  /** The run's profile, `name@version`. */
  readonly profile: string;
  /** The run's policy, `name@version`. */
  readonly policy: string;
}

/** Stable codes of bundle failures (docs/control-plane.md). */
export const BUNDLE_ERROR_CODES = {
  /** A bundle or rollout file cannot be read or does not match its schema: the worker does not start. */
  invalid: 'bundle.invalid',
  /** A run pinned a bundle version this worker does not have. */
  notFound: 'bundle.not_found',
  /** This worker's bundle of the pinned version has other content than the run pinned. */
  changed: 'bundle.changed',
} as const;
