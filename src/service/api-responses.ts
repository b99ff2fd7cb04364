import { z } from 'zod';

/**
 * The shapes of the answers that are not requests' echoes (api-schemas.ts has the rest): the run view
 * of `GET /v1/runs/{id}`, `/healthz` and `/readyz`. The handlers are typed by them and the OpenAPI
 * document is generated from them (openapi-document.ts).
 */

const Obj = z.record(z.string(), z.unknown());

/** `GET /v1/runs/{runId}`: the run as the caller may see it (docs/api.md, "Endpoints"). */
export const RunDetailSchema = z.object({
  runId: z.string(),
  executionStatus: z.string(),
  tenant: z.string(),
  user: z.string().nullable(),
  profile: z.string().nullable(),
  policy: z.string().nullable(),
  status: z.string().nullable(),
  waitingReason: z.string().nullable(),
  /** What the run waits for: `kind` (`human`, `confirmation`, `reconcile`, `input`), `actionId`, ... */
  pendingAction: z.looseObject({ kind: z.string(), actionId: z.string() }).nullable(),
  /** The arguments of the pending action, projected like public event data (obligations applied). */
  proposedArguments: z.unknown(),
  humanRequest: Obj.nullable(),
  /** The run's verified decisions, newest last. */
  decisions: z.array(Obj),
  output: z.unknown(),
  terminalReason: Obj.nullable(),
  createdAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  /** A hint for the inbox: may this caller take the pending decision (the run still checks). */
  mayDecide: z.boolean(),
  /** The run's whole `state` view: operators with a role of `roles.internalEvents` only. */
  view: Obj.optional(),
});
/**
 * What the handler answers: {@link RunDetailSchema}'s type, with the run's own interfaces (which have no
 * index signature) where the schema says "an object".
 */
export type RunDetail = Omit<
  z.infer<typeof RunDetailSchema>,
  'pendingAction' | 'humanRequest' | 'decisions' | 'terminalReason' | 'view'
> & {
  pendingAction: ({ kind: string; actionId: string } & object) | null;
  humanRequest: object | null;
  decisions: readonly object[];
  terminalReason: object | null;
  view?: object;
};

export const HealthSchema = z.object({ ok: z.literal(true) });

const ReadinessCheckSchema = z.object({
  ok: z.boolean(),
  message: z.string().optional(),
  missing: z.array(z.string()).optional(),
});

/** `/readyz`: 200 when `ready`, 503 with the first failing check's `message` otherwise. */
export const ReadinessSchema = z.object({
  ready: z.boolean(),
  message: z.string().optional(),
  checks: z.object({
    temporal: ReadinessCheckSchema,
    store: ReadinessCheckSchema,
    searchAttributes: ReadinessCheckSchema,
  }),
});
