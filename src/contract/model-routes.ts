import { z } from 'zod';
import { MAX_FAST_TIMEOUT_MS } from './tool.js';

/**
 * A versioned model route: `name@vN`, e.g. `support@v2`. A version never changes once a run may have
 * pinned it; a change is a new version (docs/models.md, "Model routes file").
 */
export const MODEL_ROUTE_KEY = /^[a-z0-9][a-z0-9._/-]{0,79}@v[1-9][0-9]{0,5}$/;

/** A {@link MODEL_ROUTE_KEY} as a schema. Built on first use (see builtOnFirstUse). */
export const ModelRouteKeySchema = z.lazy(() =>
  z
    .string()
    .regex(MODEL_ROUTE_KEY, 'expected a versioned route name like support@v2 (lowercase name, @v, a number)'),
);

/**
 * The failures a fallback can be taken on, each after the route's own retries ran out:
 * `outage` (5xx, overloaded, connection lost, timeout), `rate_limited` (429), `refusal` (content
 * filter or refusal), `invalid_output` (output not matching the schema, unknown tool, bad arguments).
 */
export const FALLBACK_TRIGGERS = ['outage', 'rate_limited', 'refusal', 'invalid_output'] as const;
/** One of {@link FALLBACK_TRIGGERS}. Built on first use (see builtOnFirstUse). */
export const FallbackTriggerSchema = z.lazy(() => z.enum(FALLBACK_TRIGGERS));
export type FallbackTrigger = z.infer<typeof FallbackTriggerSchema>;

/** The purposes a routes file can give their own route; `default` serves every other purpose. */
export const ROUTE_PURPOSES = [
  'default',
  'route',
  'plan',
  'extract',
  'decide',
  'verify',
  'respond',
  'summarize',
] as const;
export type RoutePurpose = (typeof ROUTE_PURPOSES)[number];

/**
 * A route version per purpose; `default` serves every purpose without its own. Built on first use (see
 * builtOnFirstUse).
 */
export const RoutePurposesSchema = z.lazy(() =>
  z.strictObject({
    default: ModelRouteKeySchema,
    route: ModelRouteKeySchema.optional(),
    plan: ModelRouteKeySchema.optional(),
    extract: ModelRouteKeySchema.optional(),
    decide: ModelRouteKeySchema.optional(),
    verify: ModelRouteKeySchema.optional(),
    respond: ModelRouteKeySchema.optional(),
    summarize: ModelRouteKeySchema.optional(),
  }),
);
export type RoutePurposes = z.infer<typeof RoutePurposesSchema>;

/** Most route versions one run pins (its purposes' routes and their fallbacks). */
export const MAX_PINNED_ROUTES = 32;
/** Most fallbacks of one route. */
export const MAX_FALLBACKS = 8;

/**
 * One fallback of a route: the route version to ask next, and the failures that lead there. Built on
 * first use (see builtOnFirstUse).
 */
export const ModelFallbackSchema = z.lazy(() =>
  z.strictObject({
    route: ModelRouteKeySchema,
    on: z.array(FallbackTriggerSchema).min(1).max(FALLBACK_TRIGGERS.length),
  }),
);
export type ModelFallback = z.infer<typeof ModelFallbackSchema>;

/**
 * A route version's fast path (docs/models.md, "Fast model routes"): on runs since
 * `agent-run-fast-model-v1`, each call on the route is tried first as a local activity in the workflow
 * task that decided it, one try bounded by `timeoutMs` (1 to {@link MAX_FAST_TIMEOUT_MS}, and at most
 * the route's `callSeconds`); any failure of that try falls back to the regular model activity. Part
 * of the version's definition (its digest), so part of what a run pins. Built on first use (see
 * builtOnFirstUse).
 */
export const FastModelRouteSchema = z.lazy(() =>
  z.strictObject({
    timeoutMs: z.number().int().min(1).max(MAX_FAST_TIMEOUT_MS),
  }),
);

/**
 * What a run pins of one route version: enough for the workflow to schedule and fall back, never a
 * credential or a URL. `digest` is the digest of the version's whole definition in the routes file;
 * the worker refuses to serve the call when its file has other content under the same version.
 *
 * Built on first use (see builtOnFirstUse).
 */
export const PinnedModelRouteSchema = z.lazy(() =>
  z.strictObject({
    /** `openai`, `anthropic` or `scripted`. */
    provider: z.string().min(1).max(40),
    /** The provider's model name. */
    model: z.string().min(1).max(200),
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    contextWindow: z.number().int().positive(),
    /** Attempts of the model activity on this route before it fails or falls back. */
    maxAttempts: z.number().int().min(1).max(20),
    initialRetryMs: z.number().int().min(1).max(600_000),
    maxRetryMs: z.number().int().min(1).max(3_600_000),
    /** Start-to-close timeout of one attempt. */
    callSeconds: z.number().int().min(1).max(3_600),
    /** Heartbeat timeout of one attempt; absent: the run's (activityTimeouts.modelHeartbeatSeconds). */
    heartbeatSeconds: z.number().int().min(1).max(600).optional(),
    fallbacks: z.array(ModelFallbackSchema).max(MAX_FALLBACKS),
    /** The route's fast path ({@link FastModelRouteSchema}); absent: every call is a regular activity. */
    fast: FastModelRouteSchema.optional(),
  }),
);
export type PinnedModelRoute = z.infer<typeof PinnedModelRouteSchema>;

/**
 * The model routes a run pins at its start: a route version per purpose (`default` for the rest), and
 * what it pins of every version those routes and their fallbacks name. Carried across continue-as-new;
 * never re-read from a worker's file mid-run.
 *
 * Built on first use (see builtOnFirstUse).
 */
export const ModelRoutePlanSchema = z.lazy(() =>
  z
    .strictObject({
      /** Digest of the routes file the plan was taken from. */
      source: z.string().regex(/^sha256:[0-9a-f]{64}$/),
      purposes: RoutePurposesSchema,
      routes: z.record(ModelRouteKeySchema, PinnedModelRouteSchema),
    })
    .superRefine((plan, ctx) => {
      const keys = Object.keys(plan.routes);
      if (keys.length > MAX_PINNED_ROUTES)
        ctx.addIssue({ code: 'custom', path: ['routes'], message: `at most ${MAX_PINNED_ROUTES} routes` });
      for (const [purpose, route] of Object.entries(plan.purposes)) {
        if (route !== undefined && !keys.includes(route))
          ctx.addIssue({ code: 'custom', path: ['purposes', purpose], message: `${route} is not in routes` });
      }
      // The fallbacks a call can take are those of its primary route (a purpose's route).
      for (const key of new Set(Object.values(plan.purposes))) {
        const r = key === undefined ? undefined : plan.routes[key];
        r?.fallbacks.forEach((f, i) => {
          if (!keys.includes(f.route))
            ctx.addIssue({
              code: 'custom',
              path: ['routes', key, 'fallbacks', i, 'route'],
              message: `${f.route} is not in routes`,
            });
        });
      }
    }),
);
export type ModelRoutePlan = z.infer<typeof ModelRoutePlanSchema>;
