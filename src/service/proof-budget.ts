import type { Caller } from './caller-identity.js';
import type { ServiceConfig } from './service-config.js';
import { BucketMap } from './token-bucket.js';

/** A proof request the caller's budget refuses: HTTP 429 `rate.proof_user` with `Retry-After`. */
export interface ProofRefusal {
  readonly code: 'rate.proof_user';
  readonly message: string;
  readonly retryAfterSeconds: number;
}

/**
 * Each caller's budget for the proof endpoints (docs/api.md, "Proof endpoints"): requests per second
 * (a token bucket per tenant and `sub`, taken when the request arrives, refused or not) and requests at
 * once. In memory, per service process.
 */
export class ProofBudget {
  private readonly rate: BucketMap;
  private readonly running = new Map<string, number>();

  constructor(private readonly limits: ServiceConfig['proof']) {
    this.rate = new BucketMap(limits.perUser.perSecond, limits.perUser.burst);
  }

  /**
   * Admit one proof request of `caller`, or say why not. An admitted request holds a slot until
   * `release` (the returned function) is called, exactly once, when it has answered. Never throws.
   */
  admit(caller: Caller, now = Date.now()): { release: () => void } | ProofRefusal {
    const key = `${caller.tenant}\u0000${caller.user}`;
    const held = this.running.get(key) ?? 0;
    if (held >= this.limits.concurrentPerUser)
      return {
        code: 'rate.proof_user',
        message: `more than ${this.limits.concurrentPerUser} proof requests at once for this user`,
        retryAfterSeconds: 1,
      };
    const wait = this.rate.take(key, now);
    if (wait > 0)
      return {
        code: 'rate.proof_user',
        message: `more than ${this.limits.perUser.perSecond} proof requests per second for this user`,
        retryAfterSeconds: Math.ceil(wait / 1000),
      };
    this.running.set(key, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.running.get(key) ?? 1) - 1;
        if (left <= 0) this.running.delete(key);
        else this.running.set(key, left);
      },
    };
  }
}
