import { DEFAULT_DECISION_RATE, DEFAULT_INSPECTION_RATE, type ServiceConfig } from './service-config.js';
import type { Caller } from './caller-identity.js';
import { BucketMap } from './token-bucket.js';

/** A refusal by the admission limits: HTTP 429 with `Retry-After`. */
export interface Refusal {
  readonly code:
    | 'rate.starts_tenant'
    | 'rate.starts_user'
    | 'rate.active_runs'
    | 'rate.active_runs_user'
    | 'rate.sse_tenant'
    | 'rate.sse_user'
    | 'rate.decisions_user'
    | 'rate.inspections_user';
  readonly message: string;
  /** Seconds until trying again may succeed. */
  readonly retryAfterSeconds: number;
}

/**
 * The run service's admission limits (docs/api.md): run starts per second per tenant and per user,
 * decisions and context or payload reads per second per user (token buckets), active runs per tenant, and open event streams per
 * tenant and per user. In memory,
 * per service process: with several service processes the limits apply to each.
 */
export class Admission {
  private readonly tenantStarts: BucketMap;
  private readonly userStarts: BucketMap;
  private readonly userDecisions: BucketMap;
  private readonly userInspections: BucketMap;
  private readonly streams = new Map<string, number>();

  constructor(private readonly limits: ServiceConfig['limits']) {
    this.tenantStarts = new BucketMap(limits.startsPerTenant.perSecond, limits.startsPerTenant.burst);
    this.userStarts = new BucketMap(limits.startsPerUser.perSecond, limits.startsPerUser.burst);
    const decisions = limits.decisionsPerUser ?? DEFAULT_DECISION_RATE;
    this.userDecisions = new BucketMap(decisions.perSecond, decisions.burst);
    const inspections = limits.inspectionsPerUser ?? DEFAULT_INSPECTION_RATE;
    this.userInspections = new BucketMap(inspections.perSecond, inspections.burst);
  }

  /**
   * Take one start from the per-user and per-tenant rate buckets, when the request arrives: before
   * any call to Temporal, so the rate the caller sends is the rate the buckets see (slow visibility
   * counts before them bunched evenly spaced starts into bursts and refused them), and a refusal costs
   * nothing. A request that then starts nothing gets its tokens back ({@link refundStartRate}).
   */
  admitStartRate(caller: Caller, now = Date.now()): Refusal | undefined {
    const user = this.userStarts.take(`${caller.tenant}\u0000${caller.user}`, now);
    if (user > 0)
      return {
        code: 'rate.starts_user',
        message: `more than ${this.limits.startsPerUser.perSecond} run starts per second for this user`,
        retryAfterSeconds: Math.ceil(user / 1000),
      };
    const tenant = this.tenantStarts.take(caller.tenant, now);
    if (tenant > 0) {
      this.userStarts.give(`${caller.tenant}\u0000${caller.user}`); // refused: it costs the user nothing
      return {
        code: 'rate.starts_tenant',
        message: `more than ${this.limits.startsPerTenant.perSecond} run starts per second for this tenant`,
        retryAfterSeconds: Math.ceil(tenant / 1000),
      };
    }
    return undefined;
  }

  /**
   * Give back the start tokens {@link admitStartRate} took for a request that started nothing: an
   * `Idempotency-Key` retry of a run that exists (its original paid), or a start refused for its active
   * runs after its tokens were taken.
   */
  refundStartRate(caller: Caller): void {
    this.userStarts.give(`${caller.tenant}\u0000${caller.user}`);
    this.tenantStarts.give(caller.tenant);
  }

  /**
   * Take one decision (or cancellation) from the caller's bucket (tenant and `sub`), when the request
   * arrives: before the run is looked up, so a refused or unknown run costs a token too and nothing
   * reaches Temporal past the rate.
   */
  admitDecision(caller: Caller, now = Date.now()): Refusal | undefined {
    const wait = this.userDecisions.take(`${caller.tenant}\u0000${caller.user}`, now);
    if (wait === 0) return undefined;
    return {
      code: 'rate.decisions_user',
      message: `more than ${(this.limits.decisionsPerUser ?? DEFAULT_DECISION_RATE).perSecond} decisions per second for this user`,
      retryAfterSeconds: Math.ceil(wait / 1000),
    };
  }

  /**
   * Take one read of a run's context package or tool payload from the caller's bucket (tenant and
   * `sub`), when the request arrives: before the run is looked up, so a refused or unknown run costs a
   * token too and a caller cannot page through a tenant's payloads faster than the rate.
   */
  admitInspection(caller: Caller, now = Date.now()): Refusal | undefined {
    const wait = this.userInspections.take(`${caller.tenant}\u0000${caller.user}`, now);
    if (wait === 0) return undefined;
    return {
      code: 'rate.inspections_user',
      message: `more than ${(this.limits.inspectionsPerUser ?? DEFAULT_INSPECTION_RATE).perSecond} context or payload reads per second for this user`,
      retryAfterSeconds: Math.ceil(wait / 1000),
    };
  }

  /** Admit one run start by its active runs: `active` counts the runs of the tenant and of the user that have not ended. */
  admitActiveRuns(
    caller: Caller,
    active: { readonly tenant: number; readonly user: number },
  ): Refusal | undefined {
    if (active.tenant >= this.limits.activeRunsPerTenant)
      return {
        code: 'rate.active_runs',
        message: `tenant ${caller.tenant} has ${active.tenant} active runs (limit ${this.limits.activeRunsPerTenant})`,
        retryAfterSeconds: 5,
      };
    if (active.user >= this.limits.activeRunsPerUser)
      return {
        code: 'rate.active_runs_user',
        message: `${caller.user} has ${active.user} active runs (limit ${this.limits.activeRunsPerUser})`,
        retryAfterSeconds: 5,
      };
    return undefined;
  }

  /** Open one event stream; the returned function closes it (idempotent). */
  openStream(caller: Caller): { release: () => void } | Refusal {
    const t = `t:${caller.tenant}`;
    const u = `u:${caller.tenant}\u0000${caller.user}`;
    if ((this.streams.get(t) ?? 0) >= this.limits.sseConnectionsPerTenant)
      return {
        code: 'rate.sse_tenant',
        message: 'too many open event streams for this tenant',
        retryAfterSeconds: 5,
      };
    if ((this.streams.get(u) ?? 0) >= this.limits.sseConnectionsPerUser)
      return {
        code: 'rate.sse_user',
        message: 'too many open event streams for this user',
        retryAfterSeconds: 5,
      };
    this.bump(t, 1);
    this.bump(u, 1);
    let open = true;
    return {
      release: () => {
        if (!open) return;
        open = false;
        this.bump(t, -1);
        this.bump(u, -1);
      },
    };
  }

  /** Open event streams now. */
  get openStreams(): number {
    let n = 0;
    for (const [k, v] of this.streams) if (k.startsWith('t:')) n += v;
    return n;
  }

  private bump(key: string, by: number): void {
    const n = (this.streams.get(key) ?? 0) + by;
    if (n <= 0) this.streams.delete(key);
    else this.streams.set(key, n);
  }
}
