import { z } from 'zod';
import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import { DecisionKindSchema } from '../../contract/policy-decision.js';
import { ToolEffectSchema } from '../../contract/tool.js';
import { isJsonPointer } from './json-pointer.js';
import {
  CUSTOM_REASON_CODE_PATTERN,
  isCatalogueReasonCode,
  isValidObligation,
  RESERVED_REASON_PREFIX,
} from './reason-codes.js';

/**
 * The data format of a {@link RulesPolicy}: zod schemas, validated once at construction. Rules are
 * data, never code; see docs/policies.md for the format and an example.
 */

const primitiveSchema = builtOnFirstUse(() =>
  z.union([z.string(), z.number().finite(), z.boolean(), z.null()]),
);

/** A predicate body shared by argument and fact predicates, discriminated by `op`. */
function predicateSchema<K extends string>(key: K, keySchema: z.ZodString) {
  const keyShape = { [key]: keySchema } as { [P in K]: z.ZodString };
  const PrimitiveSchema = primitiveSchema();
  return z.discriminatedUnion('op', [
    z.object({ ...keyShape, op: z.enum(['gt', 'gte', 'lt', 'lte']), value: z.number().finite() }).strict(),
    z.object({ ...keyShape, op: z.enum(['eq', 'neq']), value: PrimitiveSchema }).strict(),
    z.object({ ...keyShape, op: z.literal('in'), value: z.array(PrimitiveSchema).min(1).max(100) }).strict(),
    z.object({ ...keyShape, op: z.literal('exists'), value: z.boolean().default(true) }).strict(),
  ]);
}

/**
 * `{ pointer: '/amount', op: 'gt', value: 5000 }`: a JSON pointer into the schema-validated arguments.
 * Built on first use (see builtOnFirstUse).
 */
export const ArgPredicateSchema = z.lazy(() =>
  predicateSchema(
    'pointer',
    z
      .string()
      .max(200)
      .refine((p) => p !== '' && isJsonPointer(p), 'must be a non-empty RFC 6901 JSON pointer'),
  ),
);
export type ArgPredicate = z.infer<typeof ArgPredicateSchema>;

/**
 * `{ fact: 'order.owner_verified', op: 'eq', value: true }`: a verified fact the runner holds.
 * Built on first use (see builtOnFirstUse).
 */
export const FactPredicateSchema = z.lazy(() =>
  predicateSchema(
    'fact',
    z
      .string()
      .regex(/^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*$/, 'must be a lowercase dotted fact name')
      .max(100),
  ),
);
export type FactPredicate = z.infer<typeof FactPredicateSchema>;

/** The outcome fields a rule and the default share (one set of schemas, built on first use). */
const outcomeShape = builtOnFirstUse(() => {
  const ReasonCodeSchema = z
    .string()
    .max(100)
    .refine(
      (c) =>
        isCatalogueReasonCode(c) ||
        (CUSTOM_REASON_CODE_PATTERN.test(c) && !c.startsWith(RESERVED_REASON_PREFIX)),
      'must be a catalogue code or a custom lowercase dotted code outside the policy. namespace',
    );

  const ObligationSchema = z
    .string()
    .refine(isValidObligation, 'must be a dotted obligation like limit.refund_amount=5000');

  /** Seconds until a decision expires; at most 30 days. */
  const ExpirySchema = z
    .number()
    .int()
    .positive()
    .max(30 * 24 * 3600);

  return {
    decision: DecisionKindSchema,
    reasonCodes: z.array(ReasonCodeSchema).max(20).default([]),
    obligations: z.array(ObligationSchema).max(20).default([]),
    expiresInSeconds: ExpirySchema.optional(),
  };
});

/**
 * Conditions of a rule; all present conditions must hold (an absent one always holds). Built on first
 * use (see builtOnFirstUse).
 */
export const RuleConditionSchema = z.lazy(() => {
  /** A tool name or a glob over tool names where `*` matches any run of characters, e.g. `refund.*`. */
  const ToolPatternSchema = z
    .string()
    .regex(/^[a-z0-9_.*-]{1,100}$/, 'must be a lowercase tool name or glob');
  return z
    .object({
      tool: z.union([ToolPatternSchema, z.array(ToolPatternSchema).min(1).max(50)]).optional(),
      effect: ToolEffectSchema.optional(),
      stage: z.enum(['presentation', 'dispatch']).optional(),
      args: z.array(ArgPredicateSchema).max(20).optional(),
      facts: z.array(FactPredicateSchema).max(20).optional(),
      requester: RequesterConditionSchema.optional(),
    })
    .strict();
});

/**
 * `{ verified: false }`, `{ roles: ['vip'] }`, `{ tenants: ['acme'] }`, `{ users: ['C1001'] }`,
 * `{ kinds: ['customer'] }`: who the run is for (docs/policies.md, "Who the run is for"). Every field
 * present must hold. `verified: false` matches every run whose requester is not verified (an unsigned
 * start, or a run from before identities); `roles`, `tenants`, `users` and `kinds` hold only for a
 * verified requester (a signed start).
 * Built on first use (see builtOnFirstUse).
 */
export const RequesterConditionSchema = z.lazy(() =>
  z
    .object({
      verified: z.boolean().optional(),
      roles: z.array(z.string().min(1).max(64)).min(1).max(20).optional(),
      tenants: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
      users: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
      kinds: z
        .array(z.enum(['operator', 'approver', 'customer']))
        .min(1)
        .max(3)
        .optional(),
    })
    .strict(),
);
export type RequesterCondition = z.infer<typeof RequesterConditionSchema>;

export type RuleCondition = z.input<typeof RuleConditionSchema>;

/** One rule. Built on first use (see builtOnFirstUse). */
export const RuleSchema = z.lazy(() =>
  z
    .object({
      id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, _ . -'),
      description: z.string().max(500).optional(),
      when: RuleConditionSchema,
      ...outcomeShape(),
    })
    .strict()
    .superRefine((rule, ctx) => {
      if (rule.when.stage === 'presentation' && rule.when.args !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['when', 'args'],
          message: 'argument predicates never match at presentation (there are no arguments yet)',
        });
      }
    }),
);
export type Rule = z.infer<typeof RuleSchema>;

/** A rules policy's configuration. Built on first use (see builtOnFirstUse). */
export const RulesPolicyConfigSchema = z.lazy(() =>
  z
    .object({
      name: z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'must be a lowercase identifier'),
      version: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$/, 'must be a short version like v18'),
      /** Custom reason codes the rules may use besides the catalogue. */
      customReasonCodes: z
        .array(
          z
            .string()
            .max(100)
            .regex(CUSTOM_REASON_CODE_PATTERN, 'must be lowercase dotted words')
            .refine((c) => !c.startsWith(RESERVED_REASON_PREFIX), 'the policy. namespace is reserved'),
        )
        .default([]),
      rules: z.array(RuleSchema).max(500),
      default: z.object(outcomeShape()).strict(),
    })
    .strict()
    .superRefine((config, ctx) => {
      const declared = new Set(config.customReasonCodes);
      const seen = new Set<string>();
      config.rules.forEach((rule, i) => {
        if (seen.has(rule.id))
          ctx.addIssue({ code: 'custom', path: ['rules', i, 'id'], message: `duplicate rule id ${rule.id}` });
        seen.add(rule.id);
        checkDeclared(rule.reasonCodes, declared, ['rules', i, 'reasonCodes'], ctx);
      });
      checkDeclared(config.default.reasonCodes, declared, ['default', 'reasonCodes'], ctx);
    }),
);
export type RulesPolicyConfig = z.input<typeof RulesPolicyConfigSchema>;
export type ParsedRulesPolicyConfig = z.output<typeof RulesPolicyConfigSchema>;

function checkDeclared(
  codes: readonly string[],
  declared: ReadonlySet<string>,
  path: (string | number)[],
  ctx: z.RefinementCtx,
) {
  codes.forEach((code, j) => {
    if (!isCatalogueReasonCode(code) && !declared.has(code)) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, j],
        message: `reason code ${code} is neither in the catalogue nor in customReasonCodes`,
      });
    }
  });
}
