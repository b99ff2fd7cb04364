import { z } from 'zod';
import { FactPredicateSchema } from '../policy/rules-schema.js';
import type { Plan } from './plan.js';

/**
 * The output schema of a model call of purpose `plan`, and the reading of its answer. The model writes
 * the seed's snake_case (`plan_id`, `success_condition`, …); the harness records camelCase. The
 * capability enum is generated from the catalogue's domain ids only, so a well-behaved model names no
 * other; the answer is still read by hand (a model may ignore its schema) and judged by `admitPlan`.
 */

const ID = /^[A-Za-z0-9_.-]{1,40}$/;
/** A key the schema itself names (what a rejection's path may show). */
const SAFE_KEY = /^[a-z_]{1,20}$/;
/** Longest plan read, as JSON text (what a run records of it is bounded by this). */
export const MAX_PLAN_CHARS = 32 * 1024;

/** Built on first parse (z.lazy): the shape of a proposed plan, bounded in every dimension. */
const ProposalSchema = z.lazy(() => {
  const id = z.string().regex(ID);
  const step = z
    .object({
      step_id: id,
      objective: z.string().min(1).max(500),
      capability: z.string().min(1).max(100),
      dependencies: z.array(id).max(32).default([]),
      success_condition: z.array(FactPredicateSchema).max(10).default([]),
      failure_route: z.enum(['replan', 'fallback', 'abort']).default('replan'),
      max_attempts: z.number().int().min(1).max(100).default(1),
      gate: z.enum(['confirmation', 'approval']).optional(),
    })
    .strict();
  return z
    .object({
      plan_id: id,
      goal: z.string().min(1).max(1000),
      assumptions: z.array(z.string().min(1).max(300)).max(10).default([]),
      steps: z.array(step).min(1).max(64),
      replan_conditions: z
        .array(z.object({ id, when: FactPredicateSchema }).strict())
        .max(10)
        .default([]),
    })
    .strict();
});

/**
 * A proposal read: the plan, or why it does not fit the schema's shape (the first issue's path and
 * zod's code, never text the model wrote).
 */
export type ReadPlan =
  { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly detail: string };

/**
 * Read a model's answer (parsed JSON) as a plan. Never throws, on any value: a value that is not plain
 * JSON data (a getter, a proxy) reads as invalid, as does anything outside the shape or longer than
 * {@link MAX_PLAN_CHARS} as JSON. The bounds here are the shape's (64 steps, 100 attempts, 32 KiB);
 * the admission limits are `admitPlan`'s.
 */
export function readPlanProposal(answer: unknown): ReadPlan {
  let data: unknown;
  try {
    const text = JSON.stringify(answer); // plain data only: no getters, no proxies
    if (text === undefined || text.length > MAX_PLAN_CHARS)
      return { ok: false, detail: `not JSON data of at most ${MAX_PLAN_CHARS} characters` };
    data = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, detail: 'not JSON data' };
  }
  const parsed = ProposalSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // The path and zod's code only: its messages repeat what the model wrote (an unknown key).
    const where =
      issue && issue.path.length
        ? issue.path
            .map((k) => (typeof k === 'number' ? k : SAFE_KEY.test(String(k)) ? String(k) : '?'))
            .join('/')
        : '(root)';
    return { ok: false, detail: `${where}: ${issue?.code ?? 'invalid'}` };
  }
  const p = parsed.data;
  return {
    ok: true,
    plan: {
      planId: p.plan_id,
      goal: p.goal,
      assumptions: p.assumptions,
      steps: p.steps.map((s) => ({
        stepId: s.step_id,
        objective: s.objective,
        capability: s.capability,
        dependencies: s.dependencies,
        successCondition: s.success_condition,
        failureRoute: s.failure_route,
        maxAttempts: s.max_attempts,
        ...(s.gate !== undefined ? { gate: s.gate } : {}),
      })),
      replanConditions: p.replan_conditions,
    },
  };
}

/** Read the text of a `plan` call: JSON, then {@link readPlanProposal}. Never throws. */
export function readPlanText(text: string): ReadPlan {
  if (text.length > MAX_PLAN_CHARS)
    return { ok: false, detail: `the answer is longer than ${MAX_PLAN_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, detail: 'the answer is not JSON' };
  }
  return readPlanProposal(value);
}

const PREDICATE = {
  type: 'object',
  properties: {
    fact: { type: 'string' },
    op: { type: 'string', enum: ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'exists'] },
    value: {},
  },
  required: ['fact', 'op'],
  additionalProperties: false,
};

/**
 * The JSON schema of a `plan` answer, its `capability` enum the given domain ids (sorted, unique).
 * Never throws.
 */
export function planOutputSchema(domains: readonly string[]): Record<string, unknown> {
  const id = { type: 'string', pattern: ID.source };
  return {
    type: 'object',
    properties: {
      plan_id: id,
      goal: { type: 'string' },
      assumptions: { type: 'array', items: { type: 'string' } },
      steps: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            step_id: id,
            objective: { type: 'string' },
            capability: { type: 'string', enum: [...new Set(domains)].sort() },
            dependencies: { type: 'array', items: id },
            success_condition: { type: 'array', items: PREDICATE },
            failure_route: { type: 'string', enum: ['replan', 'fallback', 'abort'] },
            max_attempts: { type: 'integer', minimum: 1 },
            gate: { type: 'string', enum: ['confirmation', 'approval'] },
          },
          required: ['step_id', 'objective', 'capability', 'dependencies', 'success_condition'],
          additionalProperties: false,
        },
      },
      replan_conditions: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id, when: PREDICATE },
          required: ['id', 'when'],
          additionalProperties: false,
        },
      },
    },
    required: ['plan_id', 'goal', 'steps'],
    additionalProperties: false,
  };
}
