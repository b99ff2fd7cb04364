import { describe, expect, it } from 'vitest';
import { compileCatalogue } from '../../../../src/workflows/routing/compile-catalogue.js';
import { decideRoute } from '../../../../src/workflows/routing/decide-route.js';
import type {
  DomainRouteDecision,
  RouteOutcome,
  RouteState,
} from '../../../../src/workflows/routing/route-decision.js';
import {
  isRouteReasonCode,
  ROUTE_CHECKER_VERSION,
} from '../../../../src/workflows/routing/route-reason-codes.js';
import { spec, TOOLS } from './fixtures.js';

const catalogue = compileCatalogue(spec({ maxRouteChanges: 2 }), TOOLS);
const AUTH = { 'user.authenticated': true };
const DELIVERED = { 'user.authenticated': true, 'order.status': 'delivered' };

function decided(o: RouteOutcome): DomainRouteDecision {
  if (o.status !== 'decided') throw new Error(`expected a decision, got ${o.status}`);
  return o.decision;
}

const state = (facts: RouteState['facts'], current?: string, routeChanges = 0): RouteState =>
  current === undefined ? { facts, routeChanges } : { facts, current, routeChanges };

describe('decideRoute: rules over verified facts', () => {
  it('takes the single candidate without asking a model and records every exclusion with its reason', () => {
    const d = decided(decideRoute(catalogue, state({})));
    expect(d).toEqual({
      route: 'identify',
      candidateCapabilities: ['identify'],
      excludedCapabilities: ['order_status', 'refund'],
      reasonCode: 'route.single_candidate',
      exclusions: [
        { domain: 'order_status', reasonCode: 'route.facts_missing', facts: ['user.authenticated'] },
        {
          domain: 'refund',
          reasonCode: 'route.facts_missing',
          facts: ['order.status', 'user.authenticated'],
        },
      ],
      decidedBy: 'rules',
      routeChanges: 0,
      catalogue: { id: 'shop.domains', version: 'v1', digest: catalogue.digest },
      checkerVersion: ROUTE_CHECKER_VERSION,
    });
  });

  it('a present fact with another value excludes with route.condition_false', () => {
    const d = decided(
      decideRoute(catalogue, state({ 'user.authenticated': true, 'order.status': 'pending' })),
    );
    expect(d.route).toBe('order_status');
    expect(d.exclusions).toEqual([
      { domain: 'identify', reasonCode: 'route.condition_false', facts: ['user.authenticated'] },
      { domain: 'refund', reasonCode: 'route.condition_false', facts: ['order.status'] },
    ]);
  });

  it('a fact of the wrong type never satisfies a condition', () => {
    const d = decided(decideRoute(catalogue, state({ 'user.authenticated': 'true' })));
    expect(d.route).toBe('identify');
    expect(d.exclusions.map((e) => [e.domain, e.reasonCode])).toContainEqual([
      'order_status',
      'route.condition_false',
    ]);
  });

  it('no candidate: the fallback, route.no_candidate', () => {
    const c = compileCatalogue(spec({ domains: spec().domains.filter((d) => d.id !== 'identify') }), TOOLS);
    const d = decided(decideRoute(c, state({})));
    expect([d.route, d.reasonCode, d.decidedBy, d.candidateCapabilities]).toEqual([
      'escalate',
      'route.no_candidate',
      'fallback',
      [],
    ]);
  });
});

describe('decideRoute: the model proposes among the candidates only', () => {
  it('asks the model with a schema whose enum is the candidates and the fallback', () => {
    const o = decideRoute(catalogue, state(DELIVERED));
    expect(o.status).toBe('ask_model');
    if (o.status !== 'ask_model') return;
    expect(o.candidates).toEqual(['order_status', 'refund']);
    expect(o.choices).toEqual(['order_status', 'refund', 'escalate']);
    expect((o.outputSchema['properties'] as { route: { enum: string[] } }).route.enum).toEqual([
      'escalate',
      'order_status',
      'refund',
    ]);
    expect(o.exclusions.map((e) => e.domain)).toEqual(['identify']);
  });

  it('takes a proposed candidate, or the fallback when the model names it', () => {
    const d = decided(decideRoute(catalogue, state(DELIVERED), { route: 'refund' }));
    expect([d.route, d.reasonCode, d.decidedBy, d.proposed]).toEqual([
      'refund',
      'route.model_choice',
      'model',
      'refund',
    ]);
    const e = decided(decideRoute(catalogue, state(DELIVERED), { route: 'escalate' }));
    expect([e.route, e.reasonCode, e.decidedBy]).toEqual(['escalate', 'route.model_choice', 'model']);
  });

  it('never takes an excluded or unknown domain: the fallback, with its reason', () => {
    const excluded = decided(decideRoute(catalogue, state(DELIVERED), { route: 'identify' }));
    expect([excluded.route, excluded.reasonCode, excluded.decidedBy, excluded.proposed]).toEqual([
      'escalate',
      'route.excluded_domain',
      'fallback',
      'identify',
    ]);
    const unknown = decided(decideRoute(catalogue, state(DELIVERED), { route: 'wire_money' }));
    expect([unknown.route, unknown.reasonCode, unknown.proposed]).toEqual([
      'escalate',
      'route.unknown_domain',
      'wire_money',
    ]);
  });

  it('any malformed answer gives the fallback with route.invalid_proposal, never a throw', () => {
    const hostile = Object.defineProperty({}, 'route', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const answers: unknown[] = [
      null,
      'refund',
      42,
      [],
      ['refund'],
      {},
      { route: 7 },
      { route: '' },
      { route: 'refund', extra: true },
      { route: 'x'.repeat(101) },
      Object.create({ route: 'refund' }) as unknown,
      hostile,
      new Map([['route', 'refund']]),
      new Proxy(
        { route: 'refund' },
        {
          ownKeys: () => {
            throw new Error('trap');
          },
        },
      ),
    ];
    for (const answer of answers) {
      const d = decided(decideRoute(catalogue, state(DELIVERED), answer));
      expect([d.route, d.reasonCode]).toEqual(['escalate', 'route.invalid_proposal']);
      expect(d.proposed).toBeUndefined();
    }
  });

  it('ignores a proposal when the rules decided alone', () => {
    const d = decided(decideRoute(catalogue, state({}), { route: 'refund' }));
    expect([d.route, d.reasonCode, d.proposed]).toEqual(['identify', 'route.single_candidate', undefined]);
  });
});

describe('decideRoute: route changes are bounded', () => {
  it('counts changes, stays free, and replaces a change past the bound by the fallback', () => {
    const first = decided(decideRoute(catalogue, state(DELIVERED), { route: 'refund' }));
    expect(first.routeChanges).toBe(0);
    const a = decided(decideRoute(catalogue, state(DELIVERED, 'refund', 0), { route: 'order_status' }));
    expect([a.route, a.routeChanges]).toEqual(['order_status', 1]);
    const b = decided(decideRoute(catalogue, state(DELIVERED, 'order_status', 1), { route: 'refund' }));
    expect([b.route, b.routeChanges]).toEqual(['refund', 2]);
    const stay = decided(decideRoute(catalogue, state(DELIVERED, 'refund', 2), { route: 'refund' }));
    expect([stay.route, stay.reasonCode, stay.routeChanges]).toEqual(['refund', 'route.model_choice', 2]);
    const pingPong = decided(
      decideRoute(catalogue, state(DELIVERED, 'refund', 2), { route: 'order_status' }),
    );
    expect([pingPong.route, pingPong.reasonCode, pingPong.decidedBy, pingPong.routeChanges]).toEqual([
      'escalate',
      'route.change_limit',
      'fallback',
      3,
    ]);
    const rules = decided(decideRoute(catalogue, state(AUTH, 'identify', 2)));
    expect([rules.route, rules.reasonCode]).toEqual(['escalate', 'route.change_limit']);
  });

  it('a malformed state gives the fallback with route.invalid_state', () => {
    for (const s of [
      state(AUTH, 'nowhere'),
      state(AUTH, undefined, -1),
      state(AUTH, undefined, 1.5),
      { facts: null, routeChanges: 0 } as unknown as RouteState,
      null as unknown as RouteState,
    ]) {
      const d = decided(decideRoute(catalogue, s));
      expect([d.route, d.reasonCode]).toEqual(['escalate', 'route.invalid_state']);
    }
  });

  it('is deterministic and every code it writes is on the fixed list', () => {
    const facts = [{}, AUTH, DELIVERED, { ...AUTH, 'order.status': 'pending' }];
    const proposals = [undefined, { route: 'refund' }, { route: 'identify' }, { route: 'zz' }, 3];
    for (const f of facts) {
      for (const p of proposals) {
        const o = decideRoute(catalogue, state(f, 'order_status', 1), p);
        expect(decideRoute(catalogue, state(f, 'order_status', 1), p)).toEqual(o);
        if (o.status === 'decided') {
          expect(isRouteReasonCode(o.decision.reasonCode)).toBe(true);
          for (const e of o.decision.exclusions) expect(isRouteReasonCode(e.reasonCode)).toBe(true);
        }
      }
    }
  });
});
