import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import type { PolicyDecision } from '../../contract/policy-decision.js';
import type { DecisionParts } from './decision-merge.js';
import { mergeDecisions } from './decision-merge.js';
import { addSeconds } from './decision-time.js';
import { resolvePointer } from './json-pointer.js';
import type { Policy, PolicyRequest, PolicySubject } from './policy.js';
import { policyVersionOf } from './policy.js';
import { PolicyError } from './policy-error.js';
import { ReasonCodes } from './reason-codes.js';
import type {
  ArgPredicate,
  FactPredicate,
  ParsedRulesPolicyConfig,
  RequesterCondition,
  Rule,
  RulesPolicyConfig,
} from './rules-schema.js';
import { RulesPolicyConfigSchema } from './rules-schema.js';
import { globToRegExp, holds } from './predicates.js';
import {
  AuthorizationRulesSchema,
  type AuthorizationRules,
  type AuthorizationRulesInput,
} from '../authz/authorization-rules.js';

/** The constructor's argument: the rules (docs/policies.md) and, optionally, who may decide what. */
export type RulesPolicyInput = RulesPolicyConfig & { readonly authorization?: AuthorizationRulesInput };

/** A decision with the ids of the rules that produced it, for audit evidence (`policy://name/version#id`). */
export interface RulesExplanation {
  decision: PolicyDecision;
  /** Matched rule ids in rule order; empty when the default applied. */
  matchedRuleIds: string[];
  /** One `policy://<name>/<version>#<ruleId>` reference per matched rule. */
  evidence: string[];
}

/**
 * A policy whose rules are data (see {@link RulesPolicyConfigSchema} and docs/policies.md).
 *
 * Evaluation is **all matching, strictest wins**: every rule whose conditions hold applies, and the
 * results merge like {@link composePolicies} (strictest kind; reason codes of the winning rules plus
 * `policy.rule_matched`; obligations of every matched rule; earliest expiry). Rule order therefore
 * never weakens a decision. When no rule matches the `default` applies with `policy.no_rule_matched`.
 *
 * Matching: a tool glob's `*` matches any run of characters; a rule with argument predicates never
 * matches at presentation (no arguments yet); a predicate on an absent value holds only for
 * `neq` and for `exists: false`; order comparisons hold only for numbers. `expiresInSeconds` gives
 * `expiresAt = now + seconds`.
 *
 * @throws PolicyError `policy.config_invalid` from the constructor, naming every bad field
 *   (e.g. `rules[1].when.args[0].value`).
 * @throws PolicyError `policy.request_invalid` from evaluate when an expiry is due and `now` is not an ISO time.
 */
export class RulesPolicy implements Policy {
  readonly name: string;
  readonly version: string;
  private readonly config: ParsedRulesPolicyConfig;
  private readonly toolMatchers: ReadonlyMap<string, RegExp[]>;
  readonly authorization?: AuthorizationRules;

  /**
   * The same policy, built on first use (see builtOnFirstUse): its name and version are the config's
   * at once; the config is parsed and checked, and its tool matchers compiled, when the policy is
   * first checked ({@link Policy.check}), evaluated or asked for its authorization rules. For a
   * policy defined at the top level of an app's workflow module: the sandbox evaluates that module
   * for every run, and a run under another policy then builds none of it. `composeAgentRun` (the
   * worker process at start, `harness start`) checks it, so a bad config still stops before any run.
   * @throws from `check()`, `evaluate()`, `explain()` and `authorization`: what the constructor throws.
   */
  static onFirstUse(config: RulesPolicyInput): Policy & Pick<RulesPolicy, 'explain'> {
    const built = builtOnFirstUse(() => new RulesPolicy(config));
    return {
      name: config.name,
      version: config.version,
      get authorization() {
        return built().authorization;
      },
      check: () => void built(),
      evaluate: (req) => built().evaluate(req),
      explain: (req) => built().explain(req),
    };
  }

  constructor(config: RulesPolicyInput) {
    const { authorization, ...rules } = config;
    const parsed = RulesPolicyConfigSchema.safeParse(rules);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
      throw new PolicyError('policy.config_invalid', `invalid rules policy: ${issues.join('; ')}`, {
        issues,
      });
    }
    if (authorization !== undefined) {
      const auth = AuthorizationRulesSchema.safeParse(authorization);
      if (!auth.success) {
        const issues = auth.error.issues.map((i) => `authorization.${formatPath(i.path)}: ${i.message}`);
        throw new PolicyError('policy.config_invalid', `invalid rules policy: ${issues.join('; ')}`, {
          issues,
        });
      }
      this.authorization = auth.data;
    }
    this.config = parsed.data;
    this.name = parsed.data.name;
    this.version = parsed.data.version;
    const matchers = new Map<string, RegExp[]>();
    for (const rule of parsed.data.rules) {
      const tool = rule.when.tool;
      if (tool !== undefined) matchers.set(rule.id, (Array.isArray(tool) ? tool : [tool]).map(globToRegExp));
    }
    this.toolMatchers = matchers;
  }

  evaluate(req: PolicyRequest): PolicyDecision {
    return this.explain(req).decision;
  }

  /** Like {@link evaluate}, plus which rules matched. */
  explain(req: PolicyRequest): RulesExplanation {
    const matched = this.config.rules.filter((rule) => this.matches(rule, req));
    const parts: DecisionParts[] =
      matched.length === 0
        ? [outcome(this.config.default, [ReasonCodes.noRuleMatched], req.now)]
        : matched.map((rule) => outcome(rule, [ReasonCodes.ruleMatched], req.now));
    const decision = { policyVersion: policyVersionOf(this), ...mergeDecisions(parts) };
    const matchedRuleIds = matched.map((rule) => rule.id);
    return {
      decision,
      matchedRuleIds,
      evidence: matchedRuleIds.map((id) => `policy://${this.name}/${this.version}#${id}`),
    };
  }

  private matches(rule: Rule, req: PolicyRequest): boolean {
    const when = rule.when;
    const tools = this.toolMatchers.get(rule.id);
    if (tools !== undefined && !tools.some((re) => re.test(req.tool.name))) return false;
    if (when.effect !== undefined && when.effect !== req.tool.effect) return false;
    if (when.stage !== undefined && when.stage !== req.stage) return false;
    if (when.args !== undefined) {
      if (req.stage === 'presentation' || req.args === undefined) return false;
      const args = req.args;
      if (!when.args.every((p: ArgPredicate) => holds(p, resolvePointer(args, p.pointer)))) return false;
    }
    if (when.facts !== undefined) {
      const facts = req.facts ?? {};
      const factHolds = (p: FactPredicate) =>
        holds(
          p,
          Object.prototype.hasOwnProperty.call(facts, p.fact)
            ? { found: true, value: facts[p.fact] }
            : { found: false },
        );
      if (!when.facts.every(factHolds)) return false;
    }
    if (when.requester !== undefined && !requesterHolds(when.requester, req.subject)) return false;
    return true;
  }
}

/** Does the run's requester match `c`? Positive fields hold only for a verified requester. */
function requesterHolds(c: RequesterCondition, subject: PolicySubject | undefined): boolean {
  const verified = subject?.verified === true;
  if (c.verified !== undefined && c.verified !== verified) return false;
  const needsIdentity = c.roles ?? c.tenants ?? c.users ?? c.kinds;
  if (needsIdentity === undefined) return true;
  if (!verified) return false;
  if (c.roles !== undefined && !c.roles.some((r) => subject?.roles?.includes(r))) return false;
  if (c.tenants !== undefined && (subject?.tenantId === undefined || !c.tenants.includes(subject.tenantId)))
    return false;
  if (c.users !== undefined && (subject?.userId === undefined || !c.users.includes(subject.userId)))
    return false;
  if (c.kinds !== undefined && !c.kinds.includes(subject?.kind as 'customer')) return false;
  return true;
}

function outcome(
  source: {
    decision: DecisionParts['decision'];
    reasonCodes: string[];
    obligations: string[];
    expiresInSeconds?: number | undefined;
  },
  engineCodes: string[],
  now: string,
): DecisionParts {
  const parts: DecisionParts = {
    decision: source.decision,
    reasonCodes: [...engineCodes, ...source.reasonCodes],
    obligations: [...source.obligations],
  };
  if (source.expiresInSeconds !== undefined) parts.expiresAt = addSeconds(now, source.expiresInSeconds);
  return parts;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path)
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  return out === '' ? '(root)' : out;
}
