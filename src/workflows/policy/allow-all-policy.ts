import type { PolicyDecision } from '../../contract/policy-decision.js';
import type { Policy, PolicyRequest } from './policy.js';
import { policyVersionOf } from './policy.js';
import { ReasonCodes } from './reason-codes.js';

/**
 * Allows every tool the trusted composition registered, at presentation and at dispatch, with
 * reason `policy.allow_all` and no obligations or expiry.
 *
 * Allowing is the only thing it relaxes. The runner still validates arguments against the
 * registered schema before policy, enforces budgets and cancellation, records durable intent
 * before any effect, never auto-retries writes, and keeps credentials in worker composition.
 * Unregistered tools never reach a policy: the registry rejects them first.
 */
export class AllowAllPolicy implements Policy {
  readonly name: string;
  readonly version: string;

  constructor(options: { name?: string; version?: string } = {}) {
    this.name = options.name ?? 'allow_all';
    this.version = options.version ?? 'v1';
  }

  evaluate(_req: PolicyRequest): PolicyDecision {
    return {
      decision: 'allow',
      policyVersion: policyVersionOf(this),
      reasonCodes: [ReasonCodes.allowAll],
      obligations: [],
    };
  }
}
