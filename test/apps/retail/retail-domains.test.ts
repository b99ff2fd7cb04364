import { describe, expect, it } from 'vitest';
import { retailToolDefinitions } from '../../../apps/retail/workflow/retail-definitions.js';
import {
  RETAIL_DOMAINS as D,
  retailCatalogue,
  retailCatalogueSpec,
} from '../../../apps/retail/workflow/retail-domains.js';
import {
  checkReachability,
  compileCatalogue,
  decideRoute,
  type RouteOutcome,
} from '../../../src/workflows/index.js';

const catalogue = retailCatalogue();
const tools = retailToolDefinitions();
const key = (t: { name: string; version: string }) => `${t.name}@${t.version}`;
const writes = tools.filter((t) => t.effect === 'write').map(key);

function routeOf(o: RouteOutcome): string | readonly string[] {
  return o.status === 'decided' ? o.decision.route : o.candidates;
}

describe('retail capability catalogue', () => {
  it('compiles the issue’s domains over the retail tools, every tool in some domain', () => {
    expect(catalogue.domains.map((d) => d.id)).toEqual(Object.values(D).sort());
    expect(catalogue.fallback).toBe(D.escalate);
    const used = new Set(catalogue.domains.flatMap((d) => d.tools));
    expect(tools.map(key).filter((t) => !used.has(t))).toEqual([]);
    expect(catalogue.digest).toBe(retailCatalogue().digest);
  });

  it('puts a customer confirmation in front of every write, each write in exactly one domain', () => {
    const gated = catalogue.domains.flatMap((d) => d.gates.map((g) => [g.tool, g.kind]));
    expect(gated.map(([t]) => t).sort()).toEqual([...writes].sort());
    expect(new Set(gated.map(([, k]) => k))).toEqual(new Set(['confirmation']));
  });

  it('passes the static check: no route reaches a write before its facts and its confirmation', () => {
    const requiredGates = Object.fromEntries(writes.map((w) => [w, 'confirmation' as const]));
    const report = checkReachability(catalogue, { requiredGates });
    expect(report.violations).toEqual([]);
    expect(report.unreachable).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('fails the static check when cancel no longer asks that the order is the customer’s', () => {
    const spec = retailCatalogueSpec();
    const broken = {
      ...spec,
      domains: spec.domains.map((d) =>
        d.id === D.cancelPendingOrder
          ? { ...d, entry: d.entry!.filter((p) => p.fact !== 'order.owned_by_user') }
          : d,
      ),
    };
    const report = checkReachability(compileCatalogue(broken, tools));
    expect(report.ok).toBe(false);
    expect(report.violations).toEqual([
      {
        code: 'write_before_facts',
        domain: D.cancelPendingOrder,
        tool: 'retail.cancel_pending_order@v1',
        missingFacts: ['order.owned_by_user'],
        path: [D.authenticate, D.orderDetails, D.cancelPendingOrder],
      },
    ]);
  });

  it('routes by the policy’s order-status rules', () => {
    const at = (facts: Record<string, string | boolean>) =>
      routeOf(decideRoute(catalogue, { facts, routeChanges: 0 }));
    expect(at({})).toBe(D.authenticate);
    const authed = { 'user.authenticated': true };
    expect(at(authed)).toEqual([D.orderDetails, D.userAddress]);
    const order = { ...authed, 'order.owned_by_user': true };
    expect(at({ ...order, 'order.status': 'pending' })).toEqual([
      D.cancelPendingOrder,
      D.modifyPendingOrder,
      D.orderDetails,
      D.userAddress,
    ]);
    expect(at({ ...order, 'order.status': 'pending (item modified)' })).toEqual([
      D.orderDetails,
      D.userAddress,
    ]);
    expect(at({ ...order, 'order.status': 'delivered' })).toEqual([
      D.exchangeDeliveredOrder,
      D.orderDetails,
      D.returnDeliveredOrder,
      D.userAddress,
    ]);
    expect(at({ ...authed, 'order.owned_by_user': false, 'order.status': 'pending' })).toEqual([
      D.orderDetails,
      D.userAddress,
    ]);
  });

  it('a model naming a write domain the facts exclude gets escalation, not the write', () => {
    const facts = { 'user.authenticated': true, 'order.owned_by_user': true, 'order.status': 'delivered' };
    const o = decideRoute(catalogue, { facts, routeChanges: 0 }, { route: D.cancelPendingOrder });
    expect(o.status === 'decided' && [o.decision.route, o.decision.reasonCode]).toEqual([
      D.escalate,
      'route.excluded_domain',
    ]);
  });
});
