import { z } from 'zod';
import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import { RoleSchema } from '../../contract/principals.js';
import { resolvePointer } from '../policy/json-pointer.js';
import { globToRegExp, holds } from '../policy/predicates.js';
import { ArgPredicateSchema } from '../policy/rules-schema.js';

/**
 * Who may decide what, as data in a policy (docs/authorization.md). Checked only for runs that verify
 * signed decisions. A policy without its own rules gets {@link DEFAULT_AUTHORIZATION}.
 */

/** Roles that may decide, shared by the approval rules and the other decisions. */
const rolesSchema = builtOnFirstUse(() => z.array(RoleSchema).min(1).max(20));

/** Most distinct approvers a rule may ask for. */
export const MAX_REQUIRED_APPROVALS = 5;

/** One approval rule. Built on first use (see builtOnFirstUse). */
export const ApprovalRuleSchema = z.lazy(() => {
  const ToolPatternSchema = z
    .string()
    .regex(/^[a-z0-9_.*-]{1,100}$/, 'must be a lowercase tool name or glob');
  return z
    .object({
      id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, _ . -'),
      /** Which actions: a tool name or glob, and predicates over the call's arguments (all must hold). */
      when: z
        .object({
          tool: z.union([ToolPatternSchema, z.array(ToolPatternSchema).min(1).max(50)]).optional(),
          args: z.array(ArgPredicateSchema).max(20).optional(),
        })
        .strict()
        .default({}),
      /** A principal needs one of these roles to approve or reject. */
      roles: rolesSchema(),
      /**
       * Distinct approvers the tool call needs before it is dispatched, counted over every approval of
       * the same call (tool and argument digest) in the run, the profile's own confirmations included.
       */
      approvals: z.number().int().min(1).max(MAX_REQUIRED_APPROVALS).default(1),
    })
    .strict();
});

/** The default of `approve`, a fresh copy each time (what a missing `approve` becomes). */
function defaultApprove(): { id: string; when: object; roles: string[]; approvals: number }[] {
  return [{ id: 'approvers', when: {}, roles: ['approver'], approvals: 1 }];
}

/** Operators decide; with `requester` the run's user too (a fresh copy each time). */
function operators(requester: boolean): { roles: string[]; requester: boolean } {
  return { roles: ['operator'], requester };
}

/**
 * A policy's authorization rules. Every key is optional: a key left out takes its value from
 * {@link DEFAULT_AUTHORIZATION} (so rules naming only `approve` keep operators reconciling and
 * cancelling), and any other key is refused, naming the four. Built on first use (see builtOnFirstUse).
 */
export const AuthorizationRulesSchema = z.lazy(() => {
  const WhoSchema = z.object({ roles: rolesSchema(), requester: z.boolean().default(false) }).strict();
  return z.strictObject(
    {
      /** First matching rule wins; an action no rule matches can be decided by nobody (fail closed). */
      approve: z.array(ApprovalRuleSchema).min(1).max(100).default(defaultApprove),
      /** Who may settle an unknown write outcome. */
      reconcile: WhoSchema.default(() => operators(false)),
      /** Who may answer an input request; `requester: true` lets the run's user answer too. */
      input: WhoSchema.default(() => operators(true)),
      /** Who may cancel the run; `requester: true` lets the run's user cancel it too. */
      cancel: WhoSchema.default(() => operators(true)),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown key ${issue.keys.join(', ')}: authorization takes approve, reconcile, input and cancel (each optional, a missing one is the default)`
          : undefined,
    },
  );
});

export type AuthorizationRulesInput = z.input<typeof AuthorizationRulesSchema>;
export type AuthorizationRules = z.output<typeof AuthorizationRulesSchema>;
export type ApprovalRule = z.output<typeof ApprovalRuleSchema>;

/**
 * Approvers approve, operators reconcile and cancel; the run's user may answer input and cancel.
 * Written in its parsed form (what {@link AuthorizationRulesSchema} gives for `approve: [{ id:
 * 'approvers', roles: ['approver'] }]`, `reconcile: { roles: ['operator'] }` and `input`/`cancel`:
 * `{ roles: ['operator'], requester: true }`), so importing the module parses nothing; a unit test
 * keeps it equal to that parse.
 */
export const DEFAULT_AUTHORIZATION: AuthorizationRules = {
  approve: [{ id: 'approvers', when: {}, roles: ['approver'], approvals: 1 }],
  reconcile: { roles: ['operator'], requester: false },
  input: { roles: ['operator'], requester: true },
  cancel: { roles: ['operator'], requester: true },
};

/**
 * The first approval rule that matches an action (`tool` absent for a confirmation bound to no call:
 * only rules without conditions match it).
 */
export function approvalRuleFor(
  rules: AuthorizationRules,
  tool: string | undefined,
  args: Readonly<Record<string, unknown>> | undefined,
): ApprovalRule | undefined {
  return rules.approve.find((rule) => {
    const t = rule.when.tool;
    if (t !== undefined) {
      if (tool === undefined) return false;
      if (!(Array.isArray(t) ? t : [t]).some((g) => globToRegExp(g).test(tool))) return false;
    }
    if (rule.when.args !== undefined) {
      if (args === undefined) return false;
      if (!rule.when.args.every((p) => holds(p, resolvePointer(args, p.pointer)))) return false;
    }
    return true;
  });
}
