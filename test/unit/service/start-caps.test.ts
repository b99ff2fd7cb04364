import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/service/caller-identity.js';
import { CapsSchema, capFor, checkStartCaps } from '../../../src/service/start-caps.js';

/** Start caps (docs/api.md, "Caps"): the default, a tenant's over it, a start role's within it. */
const caps = CapsSchema.parse({
  default: { budget: { maxCostUsd: 5 }, modelRoutes: ['scripted/*'] },
  tenants: { big: { budget: { maxCostUsd: 50 }, modelRoutes: ['scripted/*', 'openai/gpt-4o'] } },
  roles: { requester: { budget: { maxCostUsd: 1 }, modelRoutes: ['scripted/refund'] } },
});
const start = ['requester', 'operator'];
const who = (tenant: string, roles: string[]): Caller => ({ tenant, user: 'u', roles, kind: 'customer' });

describe('start caps', () => {
  it('takes the default, then the tenant, then the most generous start role within the tenant', () => {
    expect(capFor(caps, who('small', ['operator']), start).budget.maxCostUsd).toBe(5);
    expect(capFor(caps, who('big', ['operator']), start).budget.maxCostUsd).toBe(50);
    expect(capFor(caps, who('big', ['requester']), start).budget.maxCostUsd).toBe(1);
    // A start role without an entry has the tenant's cap.
    expect(capFor(caps, who('big', ['requester', 'operator']), start).budget.maxCostUsd).toBe(50);
    // The harness defaults bound what the config leaves out.
    expect(capFor(caps, who('small', ['operator']), start).budget.maxSteps).toBe(50);
    // No routes unless configured.
    expect(
      capFor(CapsSchema.parse(undefined), who('x', ['operator']), start).allowsRoute('scripted/refund'),
    ).toBe(false);
  });

  it('refuses budgets over the cap and routes not allowed, with their codes', () => {
    const ops = who('big', ['operator']);
    const req = who('big', ['requester']);
    expect(checkStartCaps(caps, ops, start, { budget: { maxCostUsd: 1e12 } })?.code).toBe(
      'run.budget_over_cap',
    );
    expect(checkStartCaps(caps, ops, start, { budget: { maxCostUsd: 50 } })).toBeUndefined();
    expect(checkStartCaps(caps, ops, start, { budget: { perToolLimit: { a: 61 } } })?.code).toBe(
      'run.budget_over_cap',
    );
    expect(checkStartCaps(caps, ops, start, { modelRoute: 'openai/gpt-4o' })).toBeUndefined();
    expect(checkStartCaps(caps, req, start, { modelRoute: 'openai/gpt-4o' })?.code).toBe(
      'run.model_route_not_allowed',
    );
    expect(checkStartCaps(caps, req, start, { modelRoute: 'scripted/refund' })).toBeUndefined();
    expect(
      checkStartCaps(caps, who('small', ['operator']), start, { modelRoute: 'openai/gpt-4o' })?.code,
    ).toBe('run.model_route_not_allowed');
  });
});
