import { describe, expect, it } from 'vitest';
import { compileCatalogue } from '../../../../src/workflows/routing/compile-catalogue.js';
import type { CapabilityDomainSpec } from '../../../../src/workflows/routing/capability-domain.js';
import { checkReachability } from '../../../../src/workflows/routing/reachability.js';
import { domains, spec, TOOLS } from './fixtures.js';

const compile = (ds: CapabilityDomainSpec[]) => compileCatalogue(spec({ domains: ds }), TOOLS);
const replace = (id: string, over: Partial<CapabilityDomainSpec>) =>
  domains().map((d) => (d.id === id ? { ...d, ...over } : d));

describe('checkReachability', () => {
  it('passes a route table whose write domain requires the facts of its gate', () => {
    const report = checkReachability(compile(domains()));
    expect(report).toMatchObject({ ok: true, violations: [], unreachable: [] });
    expect(report.explored).toBeGreaterThan(3);
  });

  it('fails a broken route table: a write domain entered on authentication alone, with the shortest path', () => {
    const broken = replace('refund', { entry: [{ fact: 'user.authenticated', op: 'eq', value: true }] });
    expect(checkReachability(compile(broken))).toMatchObject({
      ok: false,
      violations: [
        {
          code: 'write_before_facts',
          domain: 'refund',
          tool: 'shop.refund@v1',
          missingFacts: ['order.status'],
          path: ['identify', 'refund'],
        },
      ],
    });
  });

  it('fails when a write sits in the fallback, which needs no fact', () => {
    const ds = replace('escalate', {
      tools: ['shop.transfer', 'shop.refund'],
      gates: [{ tool: 'shop.refund', kind: 'confirmation', requiredFacts: ['user.authenticated'] }],
    });
    const report = checkReachability(compile(ds));
    expect(report.ok).toBe(false);
    expect(report.violations).toContainEqual({
      code: 'write_before_facts',
      domain: 'escalate',
      tool: 'shop.refund@v1',
      missingFacts: ['user.authenticated'],
      path: ['escalate'],
    });
  });

  it('facts verified at the start count as guaranteed', () => {
    const broken = replace('refund', { entry: [{ fact: 'user.authenticated', op: 'eq', value: true }] });
    expect(checkReachability(compile(broken), { initialFacts: ['order.status'] }).ok).toBe(true);
  });

  it('a fact only establishable later guards the domain on every path, however long', () => {
    // refund needs `order.status`, which only order_status establishes, which needs authentication.
    const report = checkReachability(compile(domains()));
    expect(report.unreachable).toEqual([]);
    const cut = replace('order_status', { establishes: [] });
    expect(checkReachability(compile(cut)).unreachable).toEqual(['refund']);
  });

  it('reports a gate weaker than required', () => {
    const report = checkReachability(compile(domains()), { requiredGates: { 'shop.refund@v1': 'approval' } });
    expect(report.violations).toEqual([
      {
        code: 'gate_too_weak',
        domain: 'refund',
        tool: 'shop.refund@v1',
        gate: 'confirmation',
        required: 'approval',
        path: ['identify', 'order_status', 'refund'],
      },
    ]);
    expect(
      checkReachability(compile(domains()), { requiredGates: { 'shop.refund@v1': 'confirmation' } }).ok,
    ).toBe(true);
  });

  it('fails closed past its state bound', () => {
    expect(checkReachability(compile(domains()), { maxStates: 2 })).toEqual({
      ok: false,
      violations: [{ code: 'state_limit', explored: 2 }],
      unreachable: [],
      explored: 2,
    });
  });
});
