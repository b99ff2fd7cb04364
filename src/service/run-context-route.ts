import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { loadRequestPackage } from '../activities/context/package-store.js';
import type { ContextItem, ContextPackage } from '../activities/context/types.js';
import type { ContextRef } from '../activities/model-transcript.js';
import { maskSecrets } from '../workflows/index.js';
import { ApiError } from './api-error.js';
import { accessRun } from './run-access.js';
import { parse, requireInternalEvents, type RunRoutesOptions } from './route-options.js';

/** Characters of one item's content a reveal shows (masked for secrets); the rest is cut and said so. */
export const REVEAL_CONTENT_CHARS = 8_000;

/** One item of a context package as the run page shows it: where it came from and how far it is trusted. */
export interface ContextItemView {
  readonly itemId: string;
  readonly kind: ContextItem['kind'];
  readonly trust: ContextItem['trust'];
  /** The access label (`context/v4`), `internal` for packages before it. */
  readonly access: NonNullable<ContextItem['access']>;
  readonly sourceRef: string;
  readonly tokens: number;
  readonly role?: string;
  readonly summaryOf?: string;
  readonly withheldOf?: string;
  readonly guardrail?: ContextItem['guardrail'];
  /** With `reveal=content` only: the content, secrets masked, cut at {@link REVEAL_CONTENT_CHARS}. */
  readonly content?: string;
  /** With `reveal=content`: why the content is not shown (`restricted` items never are). */
  readonly contentWithheld?: 'restricted';
}

/** What one model call was sent: included items, what was left out and why, and the budget. */
export interface ContextPackageView {
  readonly runId: string;
  readonly call: number;
  readonly packageId: string;
  readonly route: string | null;
  readonly tokenizer: string | null;
  readonly totalTokens: number;
  readonly availableTokens: number;
  readonly contextWindow: number | null;
  readonly items: readonly ContextItemView[];
  /** Valid items that were left out, each with why (`budget`, `summarized`, `withheld`, ...). */
  readonly leftOut: ContextPackage['omissions'];
  /** Items dropped because they had expired or were not yet effective. */
  readonly expired: readonly string[];
  /** The oldest turns, left out together for the budget. */
  readonly omittedTurns: ContextPackage['omittedTurns'] | null;
  readonly revealed: boolean;
}

const CallSchema = z.object({ runId: z.string(), call: z.coerce.number().int().min(0).max(1_000_000) });
const QuerySchema = z.object({ reveal: z.enum(['content']).optional() });

function itemView(item: ContextItem, reveal: boolean): ContextItemView {
  const access = item.access ?? 'internal';
  const shown = (): Pick<ContextItemView, 'content' | 'contentWithheld'> => {
    if (!reveal) return {};
    if (access === 'restricted') return { contentWithheld: 'restricted' };
    const cut = item.content.length > REVEAL_CONTENT_CHARS;
    const masked = maskSecrets(item.content.slice(0, REVEAL_CONTENT_CHARS));
    return {
      content: cut ? `${masked}\n[… ${item.content.length - REVEAL_CONTENT_CHARS} more characters]` : masked,
    };
  };
  return {
    itemId: item.itemId,
    kind: item.kind,
    trust: item.trust,
    access,
    sourceRef: item.sourceRef,
    tokens: item.tokenEstimate ?? 0,
    ...(item.message ? { role: item.message.role } : {}),
    ...(item.summaryOf !== undefined ? { summaryOf: item.summaryOf } : {}),
    ...(item.withheldOf !== undefined ? { withheldOf: item.withheldOf } : {}),
    ...(item.guardrail !== undefined ? { guardrail: item.guardrail } : {}),
    ...shown(),
  };
}

/**
 * GET /v1/runs/:runId/context/:call (docs/api.md): the context package model call `call` of the run
 * was sent (the `context.packageId` of its `model.completed` event ends in `:ctx<call>`): every item
 * with its kind, trust, access label, source and tokens, what was left out and why, and the budget.
 * Item contents only with `?reveal=content`, secrets masked, each cut at {@link REVEAL_CONTENT_CHARS},
 * and never for items labelled `restricted`. For an operator with a role of `roles.internalEvents`
 * (else 403 `auth.role_missing`); a run outside the caller's scope is 404 `run.not_found`; a call
 * with no stored package is 404 `context.not_found`; a bad call number or query is 400
 * `request.invalid`; over the caller's read rate (`limits.inspectionsPerUser`) 429
 * `rate.inspections_user` with `Retry-After`, before anything is read. The store's errors are a 5xx and
 * change nothing.
 */
export function registerContextRoute(app: FastifyInstance, o: RunRoutesOptions): void {
  app.get<{ Params: { runId: string; call: string }; Querystring: Record<string, unknown> }>(
    '/v1/runs/:runId/context/:call',
    async (req): Promise<ContextPackageView> => {
      const { runId, call } = parse(CallSchema, req.params, 'path');
      const query = parse(QuerySchema, req.query, 'query');
      const caller = o.callerOf(req);
      const rate = o.admission.admitInspection(caller, o.arrivedAt(req));
      if (rate) throw new ApiError(429, rate.code, rate.message, rate.retryAfterSeconds);
      await accessRun(o, caller, runId);
      requireInternalEvents(o, caller, 'context packages');
      const [group] = await o.store.listMessageGroups(runId, { fromSeq: call, toSeq: call });
      const ref = (group?.messages[0] as { context?: Partial<ContextRef> } | undefined)?.context;
      if (typeof ref?.ref !== 'string')
        throw new ApiError(
          404,
          'context.not_found',
          `model call ${call} of ${runId} has no stored context package`,
        );
      const pkg = await loadRequestPackage(o.store, ref.ref);
      const reveal = query.reveal === 'content';
      return {
        runId,
        call,
        packageId: pkg.packageId,
        route: pkg.route ?? null,
        tokenizer: pkg.tokenizer ?? null,
        totalTokens: pkg.totalTokenEstimate,
        availableTokens: pkg.availableTokens,
        contextWindow: pkg.contextWindow ?? null,
        items: pkg.items.map((i) => itemView(i, reveal)),
        leftOut: pkg.omissions,
        expired: pkg.droppedExpiredRefs,
        omittedTurns: pkg.omittedTurns ?? null,
        revealed: reveal,
      };
    },
  );
}
