import { describe, expect, it } from 'vitest';
import { ProofBudget } from '../../../src/service/proof-budget.js';
import type { Caller } from '../../../src/service/caller-identity.js';

const caller = (user: string) =>
  ({ user, tenant: 't1', kind: 'operator', roles: ['operator'] }) as unknown as Caller;
const limits = { maxEvents: 10, maxBytes: 4096, perUser: { perSecond: 1, burst: 10 }, concurrentPerUser: 2 };

describe('ProofBudget: proof requests per caller, per second and at once', () => {
  it('admits up to the concurrency, refuses the next until one is released (once)', () => {
    const budget = new ProofBudget(limits);
    const a = budget.admit(caller('amy'), 0);
    const b = budget.admit(caller('amy'), 0);
    expect('release' in a && 'release' in b).toBe(true);
    expect(budget.admit(caller('amy'), 0)).toMatchObject({ code: 'rate.proof_user', retryAfterSeconds: 1 });
    expect('release' in budget.admit(caller('bob'), 0)).toBe(true);
    if ('release' in a) {
      a.release();
      a.release(); // a second release frees nothing more
    }
    expect('release' in budget.admit(caller('amy'), 0)).toBe(true);
    expect(budget.admit(caller('amy'), 0)).toMatchObject({ code: 'rate.proof_user' });
  });

  it('refuses over the rate with the seconds until a token is back', () => {
    const budget = new ProofBudget({ ...limits, perUser: { perSecond: 0.5, burst: 1 } });
    const first = budget.admit(caller('amy'), 0);
    if ('release' in first) first.release();
    expect(budget.admit(caller('amy'), 100)).toMatchObject({ code: 'rate.proof_user', retryAfterSeconds: 2 });
    expect('release' in budget.admit(caller('amy'), 2_100)).toBe(true);
  });
});
