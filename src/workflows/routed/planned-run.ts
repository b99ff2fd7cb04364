import { holds } from '../policy/predicates.js';
import type { PolicyFacts } from '../policy/policy.js';
import { admitPlan } from '../planning/admit-plan.js';
import type { Plan, PlanLimits, PlanStep } from '../planning/plan.js';
import { planOutputSchema, readPlanText } from '../planning/plan-proposal.js';
import { PlanReasonCodes, type PlanReasonCode } from '../planning/plan-reason-codes.js';
import type { FactPredicate } from '../policy/rules-schema.js';
import { domainOf } from '../routing/capability-catalogue.js';
import { decideAndRecord } from './route-turn.js';
import { planQuestion, stepMessages } from './routed-messages.js';
import { runSession, type RoutedRun } from './routed-session.js';

/** The planner's bounds in a routed profile. */
export interface PlannerOptions {
  /** Admission limits (see `admitPlan`). */
  readonly limits?: Partial<PlanLimits>;
  /** Plans made again after the first (rejections, failed steps, fired conditions); default 2, at most 5. */
  readonly maxReplans?: number;
}

/** The facts of `conditions` that do not hold now. */
function unmet(conditions: readonly FactPredicate[], facts: PolicyFacts): string[] {
  return conditions
    .filter((p) => {
      const found = Object.prototype.hasOwnProperty.call(facts, p.fact);
      return !holds(p, found ? { found: true, value: facts[p.fact] } : { found: false });
    })
    .map((p) => p.fact);
}

/**
 * One phase of a planned routed run (`plan`, `step` or `fallback`), moving `run.state` to the next
 * phase. Events: `plan.proposed`, `plan.admitted` / `plan.rejected` (with every violation), for each
 * step `route.decided` (the step's domain proposed by the plan, decided by the rules),
 * `plan.step_started`, `plan.step_completed` (outcome and reason code), and `plan.replanned` /
 * `plan.fallback`. A rejected plan runs no tool. Throws what the model and tool calls throw.
 */
export async function plannedPhase(run: RoutedRun, options: PlannerOptions): Promise<void> {
  const { state } = run;
  if (state.phase === 'plan') return proposePlan(run, options);
  if (state.phase === 'fallback') return fallback(run);
  const plan = state.plan!;
  const order = state.order!;
  if (state.pos >= order.length) {
    state.phase = 'answer';
    state.why = `Every step of plan ${plan.planId} is done.`;
    return;
  }
  return runStep(
    run,
    options,
    plan,
    plan.steps.find((s) => s.stepId === order[state.pos])!,
  );
}

async function proposePlan(run: RoutedRun, options: PlannerOptions): Promise<void> {
  const { ctx, catalogue, state } = run;
  const facts = ctx.facts();
  const answer = await ctx.model('plan', {
    messages: [...state.pending, ...planQuestion(catalogue, facts, state.why)],
    outputSchema: planOutputSchema(catalogue.domains.map((d) => d.id)),
    outputCheck: 'caller',
  });
  state.pending = [];
  const called = answer.toolCalls.length > 0 || (answer.invalidToolCalls?.length ?? 0) > 0;
  const read = called
    ? { ok: false as const, detail: 'a tool call instead of a plan' }
    : readPlanText(answer.text);
  if (!read.ok) {
    ctx.emit('plan.rejected', {
      planId: null,
      violations: [{ code: PlanReasonCodes.invalidShape, detail: read.detail }],
    });
    return replan(
      run,
      options,
      PlanReasonCodes.invalidShape,
      `The plan did not fit its schema (${read.detail}).`,
    );
  }
  const plan = read.plan;
  ctx.emit('plan.proposed', { planId: plan.planId, plan });
  const admission = admitPlan(catalogue, plan, facts, options.limits);
  if (!admission.admitted) {
    ctx.emit('plan.rejected', {
      planId: plan.planId,
      violations: admission.violations,
      checkerVersion: admission.checkerVersion,
      limits: admission.limits,
      catalogue: { id: catalogue.id, version: catalogue.version, digest: catalogue.digest },
    });
    const codes = [...new Set(admission.violations.map((v) => v.code))].join(', ');
    return replan(run, options, admission.violations[0]!.code, `Plan ${plan.planId} was rejected: ${codes}.`);
  }
  ctx.emit('plan.admitted', {
    planId: plan.planId,
    order: admission.order,
    checkerVersion: admission.checkerVersion,
    limits: admission.limits,
    catalogue: { id: catalogue.id, version: catalogue.version, digest: catalogue.digest },
  });
  Object.assign(state, {
    phase: 'step',
    plan,
    order: [...admission.order],
    pos: 0,
    attempt: 1,
    outcomes: {},
    heldAtAdmission: plan.replanConditions
      .filter((c) => unmet([c.when], facts).length === 0)
      .map((c) => c.id),
  });
  delete state.why;
}

async function runStep(run: RoutedRun, options: PlannerOptions, plan: Plan, step: PlanStep): Promise<void> {
  const { ctx, catalogue, state } = run;
  const ids = { planId: plan.planId, stepId: step.stepId, attempt: state.attempt };
  const decision = await decideAndRecord(ctx, catalogue, state, { route: step.capability, extra: ids });
  let code: PlanReasonCode;
  let missing: string[] = [];
  if (decision.route !== step.capability) {
    code = PlanReasonCodes.stepNotRouted;
  } else {
    ctx.emit('plan.step_started', { ...ids, capability: step.capability, objective: step.objective });
    ctx.enterStep(step.stepId, state.attempt);
    state.pending.push(
      ...stepMessages(step.stepId, domainOf(catalogue, step.capability)!, step.objective, state.why),
    );
    delete state.why;
    // A step that ends on its turn bound leaves its last results unread: they open the next call.
    await runSession(run, false);
    missing = unmet(step.successCondition, ctx.facts());
    code = missing.length === 0 ? PlanReasonCodes.stepSucceeded : PlanReasonCodes.conditionNotMet;
    ctx.completeStep(step.stepId);
  }
  const succeeded = code === PlanReasonCodes.stepSucceeded;
  if (succeeded || state.attempt >= step.maxAttempts)
    state.outcomes[step.stepId] = succeeded ? 'succeeded' : 'failed';
  ctx.emit('plan.step_completed', {
    ...ids,
    outcome: succeeded ? 'succeeded' : 'failed',
    reasonCode: code,
    unmet: missing,
  });
  if (succeeded) {
    const facts = ctx.facts();
    const fired = plan.replanConditions.find(
      (c) => !state.heldAtAdmission.includes(c.id) && unmet([c.when], facts).length === 0,
    );
    state.pos += 1;
    state.attempt = 1;
    if (fired)
      return replan(run, options, PlanReasonCodes.replanCondition, `Replan condition ${fired.id} fired.`, {
        conditionId: fired.id,
      });
    return;
  }
  if (state.attempt < step.maxAttempts) {
    state.attempt += 1;
    state.why = `step ${step.stepId} did not succeed (${code}${missing.length ? `: ${missing.join(', ')}` : ''})`;
    return;
  }
  const why = `Step ${step.stepId} failed (${code}).`;
  if (step.failureRoute === 'replan')
    return replan(run, options, PlanReasonCodes.stepFailedReplan, why, { stepId: step.stepId });
  if (step.failureRoute === 'fallback') return toFallback(run, code, why);
  state.phase = 'answer';
  state.why = `${why} The plan was abandoned.`;
}

/** Plan again for `reasonCode` (recorded), or fall back once the replan bound is reached. */
function replan(
  run: RoutedRun,
  options: PlannerOptions,
  reasonCode: string,
  why: string,
  extra: Record<string, unknown> = {},
): void {
  const { ctx, state } = run;
  const max = Math.min(Math.max(options.maxReplans ?? 2, 0), 5);
  if (state.replans >= max)
    return toFallback(run, PlanReasonCodes.replanLimit, `${why} No more replans (${max}).`);
  state.replans += 1;
  ctx.emit('plan.replanned', {
    planId: state.plan?.planId ?? null,
    reasonCode,
    replans: state.replans,
    ...extra,
  });
  Object.assign(state, { phase: 'plan', why });
}

function toFallback(run: RoutedRun, reasonCode: string, why: string): void {
  const { ctx, state } = run;
  ctx.emit('plan.fallback', {
    planId: state.plan?.planId ?? null,
    reasonCode,
    fallback: run.catalogue.fallback,
  });
  Object.assign(state, { phase: 'fallback', why });
}

/** Work in the declared fallback domain (routed there by the rules, on the plan's behalf), then answer. */
async function fallback(run: RoutedRun): Promise<void> {
  const { ctx, catalogue, state } = run;
  const why = state.why ?? 'The plan could not be carried out.';
  const decision = await decideAndRecord(ctx, catalogue, state, {
    route: catalogue.fallback,
    extra: { planId: state.plan?.planId ?? null },
  });
  if (decision.route === catalogue.fallback) {
    state.pending.push(...stepMessages('fallback', domainOf(catalogue, catalogue.fallback)!, why));
    await runSession(run, false);
  }
  state.phase = 'answer';
  state.why = why;
}
