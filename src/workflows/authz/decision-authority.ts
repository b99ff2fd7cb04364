import { z } from 'zod';
import { PrincipalIdSchema, type Principal } from '../../contract/principals.js';
import { approvalRuleFor, type AuthorizationRules } from './authorization-rules.js';
import {
  checkDecisionToken,
  decisionPayloadDigest,
  TOKEN_DECISIONS,
  type TokenDecision,
} from './decision-token.js';
import type { PrincipalDirectory } from './principal-directory.js';
import { versionedName } from '../../contract/versioned-name.js';

/** Most token ids a run remembers (tokens live at most a day and each is bound to one action). */
export const MAX_USED_TOKENS = 512;
/** Most tool calls whose approvers a run remembers. */
export const MAX_APPROVAL_KEYS = 200;
/** Most decisions kept in the run's decision record (every decision is also an event). */
export const MAX_DECISION_RECORDS = 50;

/** A verified decision, as the run record and `harness show` name it. */
export interface DecisionRecord {
  readonly actionId: string;
  readonly decision: TokenDecision;
  readonly principal: string;
  readonly keyId: string;
  readonly at: string;
  /** The delegate (the run service) that signed on the principal's behalf. */
  readonly via?: string;
}

/**
 * The carried form, checked when a generation starts (bounded like the live one). Built on first use
 * (see builtOnFirstUse).
 */
export const AuthzCarriedSchema = z.lazy(() => {
  const Jti = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);
  const ActionId = z.string().min(1).max(200);
  return z
    .object({
      schemaVersion: z.literal(1),
      decisionCounter: z.number().int().nonnegative(),
      usedTokens: z.array(Jti).max(MAX_USED_TOKENS),
      approvals: z
        .record(z.string().max(400), z.array(PrincipalIdSchema).max(20))
        .refine((r) => Object.keys(r).length <= MAX_APPROVAL_KEYS, 'too many approval keys'),
      decisions: z
        .array(
          z
            .object({
              actionId: ActionId,
              decision: z.enum(TOKEN_DECISIONS),
              principal: PrincipalIdSchema,
              keyId: z.string().max(64),
              at: z.string().max(40),
              via: PrincipalIdSchema.optional(),
            })
            .strict(),
        )
        .max(MAX_DECISION_RECORDS),
    })
    .strict();
});

/** What a run that checks decisions carries across continue-as-new. */
export interface AuthzCarried {
  readonly schemaVersion: 1;
  readonly decisionCounter: number;
  readonly usedTokens: readonly string[];
  /** Distinct approvers by tool call (`tool@version#argsDigest`). */
  readonly approvals: Readonly<Record<string, readonly string[]>>;
  readonly decisions: readonly DecisionRecord[];
}

/** The action a decision is about, as the gate holds it while waiting. */
export interface DecidedAction {
  readonly actionId: string;
  readonly tool?: string;
  readonly version?: string;
  readonly argsDigest?: string;
  readonly args?: Readonly<Record<string, unknown>>;
}

export type Verdict =
  | {
      readonly ok: true;
      readonly principal: Principal;
      readonly keyId: string;
      readonly jti: string;
      readonly via?: string;
    }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly principal?: string };

const refused = (code: string, message: string, principal?: string): Verdict => ({
  ok: false,
  code,
  message,
  ...(principal !== undefined ? { principal } : {}),
});

/** The key under which approvals of one tool call are counted. */
export function callKeyOf(action: DecidedAction): string {
  return action.tool !== undefined && action.argsDigest !== undefined
    ? `${versionedName(action.tool, action.version ?? '')}#${action.argsDigest}`
    : `action:${action.actionId}`;
}

/**
 * Who decided, and whether they may (docs/authorization.md). Verifies a decision's signed token
 * against the principal registry the run loaded, then applies the policy's authorization rules: roles,
 * distinct approvers, the requester never approving, a customer confirming only their own run's
 * actions. Pure and deterministic (the registry comes from a recorded activity result, the clock is
 * the workflow's); it never throws and changes nothing until {@link accept} is called.
 */
export class DecisionAuthority {
  private directory: PrincipalDirectory | undefined;
  private counter: number;
  private readonly used: string[];
  private readonly usedSet: Set<string>;
  private readonly approvals: Map<string, string[]>;
  private readonly records: DecisionRecord[];

  constructor(
    private readonly o: {
      readonly workflowId: string;
      /** The run's first execution run id (tokens are bound to it too). */
      readonly firstExecutionRunId: string;
      /** The run's user (`userId`): never approves, is the customer who confirms. */
      readonly requester: string | undefined;
      /** The run's tenant (`tenantId`): a delegated decision must be authenticated in it. */
      readonly tenantId?: string;
      readonly rules: AuthorizationRules;
      readonly carried?: AuthzCarried;
      /** Tenant and delegation scope (`agent-run-trust-scope-v1`; see `ExpectedDecision.scoped`). */
      readonly scoped?: boolean;
    },
  ) {
    this.counter = o.carried?.decisionCounter ?? 0;
    this.used = [...(o.carried?.usedTokens ?? [])];
    this.usedSet = new Set(this.used);
    this.approvals = new Map(Object.entries(o.carried?.approvals ?? {}).map(([k, v]) => [k, [...v]]));
    this.records = [...(o.carried?.decisions ?? [])];
  }

  /** Use the registry loaded for this wait (a recorded local activity result). */
  useDirectory(directory: PrincipalDirectory): void {
    this.directory = directory;
  }

  /** The run's user: the customer who confirms, never an approver. */
  get requester(): string | undefined {
    return this.o.requester;
  }

  get registryDigest(): string | undefined {
    return this.directory?.digest;
  }

  /** The next action id: unique for the whole workflow, across continue-as-new. */
  nextActionId(kind: 'a' | 'c' | 'r' | 'i', ...parts: string[]): string {
    this.counter += 1;
    return [`${kind}${this.counter}`, ...parts.map((p) => p.slice(0, 80))].join('.');
  }

  /** Verify the token and the rules for `decision` on `action`; `waitApprovers` approved in this wait. */
  check(
    decision: TokenDecision,
    payload: Readonly<Record<string, unknown>>,
    action: DecidedAction | 'cancel',
    nowMs: number,
    context: { readonly customerWait?: boolean } = {},
  ): Verdict {
    if (!this.directory)
      return refused('decision.registry_unavailable', 'no principal registry was loaded for this run');
    const actionId = action === 'cancel' ? 'cancel' : action.actionId;
    const token = typeof payload.token === 'string' ? payload.token : undefined;
    const t = checkDecisionToken(
      token,
      this.directory,
      {
        workflowId: this.o.workflowId,
        firstExecutionRunId: this.o.firstExecutionRunId,
        actionId,
        argsDigest: action === 'cancel' ? null : (action.argsDigest ?? null),
        decision,
        payloadDigest: decisionPayloadDigest(payload),
        ...(this.o.tenantId !== undefined ? { tenantId: this.o.tenantId } : {}),
        ...(this.o.scoped ? { scoped: true } : {}),
      },
      nowMs,
      (jti) => this.usedSet.has(jti),
    );
    if (!t.ok) return t;
    const p = t.principal;
    if (payload.actor !== p.id)
      return refused(
        'decision.actor_mismatch',
        `actor ${String(payload.actor)} is not the signer ${p.id}`,
        p.id,
      );
    const ok: Verdict = {
      ok: true,
      principal: p,
      keyId: t.keyId,
      jti: t.claims.jti,
      ...(t.via !== undefined ? { via: t.via } : {}),
    };
    const isRequester = this.o.requester !== undefined && p.id === this.o.requester;
    const hasRole = (roles: readonly string[]) => p.roles.some((r) => roles.includes(r));
    /** At a customer confirmation only the run's own customer decides. */
    const customerOnly = (verb: string): Verdict =>
      p.kind === 'customer' && isRequester
        ? ok
        : refused('decision.not_the_customer', `only the run's customer may ${verb} (${p.id} is not)`, p.id);
    switch (decision) {
      case 'confirm':
        if (!context.customerWait)
          return refused(
            'decision.not_a_confirmation',
            'this action waits for an approval, not a customer confirmation',
            p.id,
          );
        return customerOnly('confirm');
      case 'approve':
      case 'reject':
      case 'request_more_info': {
        if (action === 'cancel') return refused('decision.wrong_action', 'nothing to approve', p.id);
        if (context.customerWait && decision === 'request_more_info')
          return refused('decision.not_allowed', 'a customer confirmation takes confirm or reject', p.id);
        if (context.customerWait) {
          if (decision === 'approve')
            return refused(
              'decision.customer_confirmation_required',
              'this action waits for the customer to confirm',
              p.id,
            );
          return customerOnly('decline');
        }
        if (p.kind === 'customer')
          return refused('decision.customer_cannot_approve', 'a customer confirms; it never approves', p.id);
        if (isRequester)
          return refused(
            'decision.requester_cannot_approve',
            `${p.id} requested this run and may not decide its actions`,
            p.id,
          );
        const rule = approvalRuleFor(this.o.rules, action.tool, action.args);
        if (!rule)
          return refused('decision.no_rule', 'no authorization rule lets anyone decide this action', p.id);
        if (!hasRole(rule.roles))
          return refused(
            'decision.role_missing',
            `${p.id} needs one of the roles ${rule.roles.join(', ')} (rule ${rule.id})`,
            p.id,
          );
        if (decision === 'approve') {
          const have = this.approvals.get(callKeyOf(action)) ?? [];
          if (have.includes(p.id) && have.length < rule.approvals)
            return refused(
              'decision.same_approver',
              `${p.id} already approved this call; it needs ${rule.approvals} distinct approvers`,
              p.id,
            );
        }
        return ok;
      }
      case 'reconcile':
        if (p.kind === 'customer' || !hasRole(this.o.rules.reconcile.roles))
          return refused(
            'decision.role_missing',
            `${p.id} needs one of the roles ${this.o.rules.reconcile.roles.join(', ')} to reconcile`,
            p.id,
          );
        return ok;
      case 'input':
      case 'cancel': {
        const who = decision === 'input' ? this.o.rules.input : this.o.rules.cancel;
        if ((who.requester && isRequester) || (p.kind !== 'customer' && hasRole(who.roles))) return ok;
        return refused(
          'decision.role_missing',
          `${p.id} may not ${decision === 'input' ? 'answer' : 'cancel'} this run`,
          p.id,
        );
      }
    }
  }

  /** Distinct approvers a tool call needs under the rules (1 for an action no rule names). */
  requiredApprovals(action: DecidedAction): number {
    return approvalRuleFor(this.o.rules, action.tool, action.args)?.approvals ?? 1;
  }

  /** Distinct approvers the call of `action` has so far. */
  approversOf(action: DecidedAction): readonly string[] {
    return this.approvals.get(callKeyOf(action)) ?? [];
  }

  /**
   * The call's approvals are used up: it was dispatched, or a decision on it was rejected or expired.
   * A later identical call needs its own approvals.
   */
  consume(action: DecidedAction): void {
    this.approvals.delete(callKeyOf(action));
  }

  /** Record an accepted decision: its token is spent, an approval counts for its call. */
  accept(
    verdict: Extract<Verdict, { ok: true }>,
    decision: TokenDecision,
    action: DecidedAction | 'cancel',
    at: string,
  ): void {
    this.used.push(verdict.jti);
    this.usedSet.add(verdict.jti);
    while (this.used.length > MAX_USED_TOKENS) this.usedSet.delete(this.used.shift()!);
    const actionId = action === 'cancel' ? 'cancel' : action.actionId;
    if (decision === 'approve' && action !== 'cancel') {
      const key = callKeyOf(action);
      const have = this.approvals.get(key) ?? [];
      if (!have.includes(verdict.principal.id)) this.approvals.set(key, [...have, verdict.principal.id]);
      while (this.approvals.size > MAX_APPROVAL_KEYS)
        this.approvals.delete(this.approvals.keys().next().value!);
    }
    this.records.push({
      actionId,
      decision,
      principal: verdict.principal.id,
      keyId: verdict.keyId,
      at,
      ...(verdict.via !== undefined ? { via: verdict.via } : {}),
    });
    if (this.records.length > MAX_DECISION_RECORDS)
      this.records.splice(0, this.records.length - MAX_DECISION_RECORDS);
  }

  /** The verified decisions, newest last (bounded). */
  get decisions(): readonly DecisionRecord[] {
    return this.records;
  }

  carry(): AuthzCarried {
    return {
      schemaVersion: 1,
      decisionCounter: this.counter,
      usedTokens: [...this.used],
      approvals: Object.fromEntries(this.approvals),
      decisions: [...this.records],
    };
  }
}
