import { describe, expect, it } from 'vitest';
import { Admission } from '../../../src/service/admission.js';
import { parseServiceConfig } from '../../../src/service/service-config.js';
import { TokenBucket } from '../../../src/service/token-bucket.js';

const caller = (user: string, tenant = 'acme') => ({ tenant, user, roles: [], kind: 'operator' as const });
const limits = (over: Record<string, unknown> = {}) =>
  parseServiceConfig({ identity: { jwksFile: 'x' }, delegateKeyFile: 'y', limits: over }).limits;

describe('admission limits', () => {
  it('a token bucket lets a burst through, then one token per 1/rate seconds', () => {
    const b = new TokenBucket(2, 3, 0);
    expect([b.take(0), b.take(0), b.take(0)]).toEqual([0, 0, 0]);
    expect(b.take(0)).toBe(500);
    expect(b.take(499)).toBeGreaterThan(0);
    expect(b.take(500)).toBe(0);
  });

  it('judges requests at their arrival: handled out of order, starts at the rate all pass', () => {
    // 2 per second, burst 2: arrivals every 500 ms, handled in pairs and swapped.
    const b = new TokenBucket(2, 2, 0);
    const arrivals = Array.from({ length: 20 }, (_, i) => i * 500);
    const handled = arrivals.flatMap((_, i) => (i % 2 === 0 ? [arrivals[i + 1]!, arrivals[i]!] : []));
    expect(handled.map((t) => b.take(t))).toEqual(handled.map(() => 0));
    // An earlier time neither refills nor drains: the next on-time request still passes, one more does not.
    const c = new TokenBucket(1, 1, 0);
    expect(c.take(1_000)).toBe(0);
    expect(c.take(0)).toBeGreaterThan(0);
    expect(c.take(2_000)).toBe(0);
  });

  it('refuses starts above the per-user and per-tenant rates, and at the active-run limits', () => {
    const a = new Admission(
      limits({
        startsPerUser: { perSecond: 1, burst: 1 },
        startsPerTenant: { perSecond: 1, burst: 2 },
        activeRunsPerTenant: 5,
        activeRunsPerUser: 2,
      }),
    );
    expect(a.admitStartRate(caller('u1'), 0)).toBeUndefined();
    expect(a.admitStartRate(caller('u1'), 0)).toMatchObject({
      code: 'rate.starts_user',
      retryAfterSeconds: 1,
    });
    expect(a.admitStartRate(caller('u2'), 0)).toBeUndefined();
    expect(a.admitStartRate(caller('u3'), 0)).toMatchObject({ code: 'rate.starts_tenant' });
    expect(a.admitStartRate(caller('u9', 'globex'), 0)).toBeUndefined();
    expect(a.admitActiveRuns(caller('u4'), { tenant: 5, user: 0 })).toMatchObject({
      code: 'rate.active_runs',
    });
    expect(a.admitActiveRuns(caller('u4'), { tenant: 1, user: 2 })).toMatchObject({
      code: 'rate.active_runs_user',
    });
    expect(a.admitActiveRuns(caller('u4'), { tenant: 1, user: 1 })).toBeUndefined();
  });

  it('caps open event streams per user and per tenant; a release is counted once', () => {
    const a = new Admission(limits({ sseConnectionsPerUser: 2, sseConnectionsPerTenant: 3 }));
    const s1 = a.openStream(caller('u1'));
    const s2 = a.openStream(caller('u1'));
    expect(a.openStream(caller('u1'))).toMatchObject({ code: 'rate.sse_user' });
    const s3 = a.openStream(caller('u2'));
    expect(a.openStream(caller('u3'))).toMatchObject({ code: 'rate.sse_tenant' });
    expect(a.openStreams).toBe(3);
    if ('release' in s1) {
      s1.release();
      s1.release();
    }
    expect(a.openStreams).toBe(2);
    expect('release' in a.openStream(caller('u1'))).toBe(true);
    for (const s of [s2, s3]) if ('release' in s) s.release();
  });

  it('a config that does not validate names the field', () => {
    expect(() => parseServiceConfig({ identity: {}, delegateKeyFile: 'y' }, 'svc.json')).toThrow(
      /svc\.json: identity\.jwksFile/,
    );
    expect(() =>
      parseServiceConfig({
        identity: { jwksFile: 'x' },
        delegateKeyFile: 'y',
        limits: { startsPerUser: { perSecond: -1, burst: 1 } },
      }),
    ).toThrow(/limits\.startsPerUser\.perSecond/);
  });
});
