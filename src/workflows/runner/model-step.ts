import { noteModelRefusals, type ModelRefusals } from './worker-refusals.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { ModelRoutePlan } from '../../contract/model-routes.js';
import { checkModelCall, checkSpend, checkStep } from './budget.js';
import {
  nextFallback,
  pinnedRoute,
  routeForPurpose,
  summarizeRouteOf,
  type BilledUsage,
} from './model-routing.js';
import type { ModelDecision, ModelPurpose } from './ports.js';
import type { ModelCallInput } from '../../contract/step-io.js';
import type { RunCore } from './run-core.js';
import type { ModelRequest } from './run-context.js';
import { stopIfExhausted } from './run-stop.js';
import { callPromise } from './call-promise.js';
import { versionedName } from '../../contract/versioned-name.js';

/** What every attempt of one model call shares (the pinned route's fallbacks each make an attempt). */
interface ModelCallPlan {
  readonly callSeq: number;
  readonly purpose: ModelPurpose;
  readonly request: ModelRequest;
  readonly toolKeys: readonly string[];
  /** The route the run pinned for `purpose`: fallbacks are looked up from it. */
  readonly primary: string;
}

/**
 * What a model step works through: the run core and the tools the policy presents. It is the context
 * the profile called `model` on (the runner, or a graph node's view of it), passed with each call.
 */
export interface ModelStepCore extends RunCore {
  /** The profile's tools the policy lets the model see now (see `RunContext.visibleTools`). */
  visibleTools(): ToolDefinition[];
}

export interface ModelStepOptions {
  /** The model routes the run pinned at its start; absent: every call goes to `versions.modelRoute`. */
  readonly modelRoutes?: ModelRoutePlan;
}

/**
 * One model step of the run (seed 004), beside the tool pipeline: the step and model-call budgets,
 * the presentation point (the model sees only tools the policy shows), the call on the route the run
 * pinned for its purpose and, on failure, its fallbacks; then usage into the budgets and the spend
 * check. Written with `then` (call-promise.ts): one promise per attempt.
 */
export class ModelStep {
  constructor(private readonly options: ModelStepOptions) {}

  /**
   * Ask the model for `purpose` on behalf of `core`. Resolves with its decision.
   * Failure semantics: rejects with RunStop (`budget_exhausted`) when the step, model-call or spend
   * budget is exhausted (after `budget.exhausted`); with the activity's error (its stable `code`) when
   * the call failed on its route and no fallback is taken (after `model.failed` under the event
   * envelope); with the host's cancellation as is. Nothing is thrown synchronously.
   */
  call(core: ModelStepCore, purpose: ModelPurpose, request: ModelRequest): Promise<ModelDecision> {
    return callPromise(() => {
      const s = core.state;
      stopIfExhausted(checkStep(s.limits, s.budget) ?? checkModelCall(s.limits, s.budget), (t, d) =>
        core.emit(t, d),
      );
      s.budget.steps += 1;
      s.budget.stepsWithoutProgress += 1;
      // Presentation point: the model never sees a tool the policy excludes, whatever the profile asked.
      const allowed = new Set(core.visibleTools().map((d) => versionedName(d.name, d.version)));
      const toolKeys = (request.tools ?? [])
        .map((d) => versionedName(d.name, d.version))
        .filter((k) => allowed.has(k));
      const callSeq = s.nextModelCall;
      s.nextModelCall += 1;
      const plan = this.options.modelRoutes;
      const primary = plan ? routeForPurpose(plan, purpose) : s.versions.modelRoute;
      core.emit(core.eventEnvelope ? 'model.started' : 'model.requested', {
        callSeq,
        purpose,
        modelRoute: primary,
        ...(plan ? { provider: pinnedRoute(plan, primary).provider } : {}),
        toolKeys,
      });
      return this.attempt(core, { callSeq, purpose, request, toolKeys, primary }, primary, 0);
    });
  }

  /**
   * One attempt of a model call on `route` (the pinned route, or its fallback at `position`), and on
   * failure the next fallback's attempt. Written with `then` (call-promise.ts): one promise per attempt.
   */
  private attempt(
    core: ModelStepCore,
    call: ModelCallPlan,
    route: string,
    position: number,
  ): Promise<ModelDecision> {
    const s = core.state;
    const plan = this.options.modelRoutes;
    const { callSeq, purpose, request, toolKeys, primary } = call;
    const events = core.takeOutbox();
    const pinned = plan ? pinnedRoute(plan, route) : undefined;
    const pending = callPromise(() =>
      core.ports.callModel(
        {
          runId: s.runId,
          callSeq,
          purpose,
          modelRoute: route,
          ...(pinned ? { routeDigest: pinned.digest } : {}),
          ...(position > 0 ? { fallback: position } : {}),
          ...(plan ? { summarizeRoute: summarizeRouteOf(plan) } : {}),
          newMessages: request.messages,
          toolKeys,
          outputSchema: request.outputSchema,
          // Only when asked, so the inputs of calls that do not ask stay as they were.
          ...(request.outputCheck ? { outputCheck: request.outputCheck } : {}),
          ...(request.invalidToolCalls && core.features.on('invalidToolCalls')
            ? { invalidToolCalls: 'report' as const }
            : {}),
          ...(core.features.on('contextPriority')
            ? {
                contextOrder: 'priority' as const,
                ...(core.policy.context?.flaggedToolOutput === 'withhold'
                  ? { flaggedToolOutput: 'withhold' as const }
                  : {}),
                ...retrievalOf(core),
              }
            : {}),
          ...(core.features.on('workerRefusal') ? { workerRefusal: true as const } : {}),
          events,
        },
        pinned,
      ),
    );
    return pending.then(
      ({ workerRefused, ...decision }) => {
        noteModelRefusals(core, { callSeq, purpose, modelRoute: route }, workerRefused);
        return this.completed(core, callSeq, purpose, route, decision);
      },
      (err: unknown) => {
        core.requeue(events); // the activity may never have stored them
        const failure = err as {
          code?: string;
          message?: string;
          billed?: BilledUsage;
          workerRefused?: ModelRefusals;
        };
        noteModelRefusals(core, { callSeq, purpose, modelRoute: route }, failure.workerRefused);
        const cancelled = core.isCancellation(err);
        const next = plan && !cancelled ? nextFallback(plan, primary, position, failure.code) : undefined;
        // The call failed for good on this route (its retries ran out): recorded before the run fails
        // or falls back. A cancellation is the run's end, not a model failure.
        if (core.eventEnvelope && !cancelled)
          core.emit('model.failed', {
            callSeq,
            purpose,
            modelRoute: route,
            ...(pinned ? { provider: pinned.provider } : {}),
            code: failure.code ?? 'model.failed',
            message: (failure.message ?? '').slice(0, 500),
          });
        if (!plan || !next || !core.features.on('modelFallback')) throw err;
        // A billed failed attempt (a refusal) is counted once, here; attempts without an answer cost nothing.
        if (failure.billed) {
          s.budget.inputTokens += failure.billed.usage.inputTokens;
          s.budget.outputTokens += failure.billed.usage.outputTokens;
          s.budget.costUsd += failure.billed.costUsd;
        }
        core.emit('model.fallback', {
          callSeq,
          purpose,
          from: route,
          fromProvider: pinnedRoute(plan, route).provider,
          to: next.route,
          toProvider: pinnedRoute(plan, next.route).provider,
          reason: next.trigger,
          code: failure.code,
          message: (failure.message ?? '').slice(0, 500),
          ...(failure.billed ? { billed: failure.billed } : {}),
        });
        return this.attempt(core, call, next.route, next.position);
      },
    );
  }

  /** A model call answered on `route`: usage into the budgets, `model.completed`, the spend check. */
  private completed(
    core: ModelStepCore,
    callSeq: number,
    purpose: ModelPurpose,
    route: string,
    decision: ModelDecision,
  ): ModelDecision {
    const s = core.state;
    const plan = this.options.modelRoutes;
    s.budget.modelCalls += 1;
    s.budget.inputTokens += decision.usage.inputTokens;
    s.budget.outputTokens += decision.usage.outputTokens;
    s.budget.costUsd += decision.costUsd;
    core.emit('model.completed', {
      callSeq,
      purpose,
      stopReason: decision.stopReason,
      usage: decision.usage,
      costUsd: decision.costUsd,
      toolCalls: decision.toolCalls.map((c) => versionedName(c.name, c.version)),
      replayed: decision.replayed,
      // The Temporal attempt of the model activity that got the answer.
      ...(core.eventEnvelope && decision.attempt !== undefined ? { activityAttempt: decision.attempt } : {}),
      ...(plan
        ? { modelRoute: route, provider: decision.provider ?? pinnedRoute(plan, route).provider }
        : {}),
      // The context package the call sent (in the evidence store): what the model saw, by reference.
      ...(decision.context && core.features.on('modelContextRef') ? { context: decision.context } : {}),
    });
    // Tool output the input guardrail flagged in this call's request (recorded by the activity in
    // its result, so a replay emits the same): the finding is evidence, the data stayed fenced.
    if (decision.toolOutputFindings?.length)
      core.emit('guardrail.tool_output_flagged', { callSeq, findings: decision.toolOutputFindings });
    core.warnBudgets();
    stopIfExhausted(checkSpend(s.limits, s.budget), (t, d) => core.emit(t, d));
    core.ports.publish(s);
    return decision;
  }
}

/**
 * The retrieval a model call asks for: the policy's (`ContextPolicy.retrieval`) for a run whose tenant
 * is verified (a signed start); nothing otherwise, so an anonymous run or a tenant the starter typed
 * never reads a tenant's documents.
 */
function retrievalOf(core: RunCore): { retrieval?: ModelCallInput['retrieval'] } {
  const asked = core.policy.context?.retrieval;
  const subject = core.subject;
  if (!asked || subject?.verified !== true || subject.tenantId === undefined) return {};
  return { retrieval: { tenantId: subject.tenantId, limit: asked.limit, maxAccess: asked.maxAccess } };
}
