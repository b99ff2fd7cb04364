import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../../src/contract/errors.js';
import {
  CatalogueInvalidError,
  type CatalogueIssue,
} from '../../../../src/workflows/routing/catalogue-error.js';
import { compileCatalogue } from '../../../../src/workflows/routing/compile-catalogue.js';
import type { CatalogueSpec } from '../../../../src/workflows/routing/capability-domain.js';
import { domains, spec, thrownBy, TOOLS } from './fixtures.js';

function issuesOf(s: unknown): CatalogueIssue[] {
  const err = thrownBy(() => compileCatalogue(s as CatalogueSpec, TOOLS));
  expect(isHarnessError(err, 'routing.catalogue_invalid')).toBe(true);
  expect(err).toBeInstanceOf(CatalogueInvalidError);
  return [...(err as CatalogueInvalidError).issues];
}

describe('compileCatalogue', () => {
  it('pins tools, sorts domains and derives required facts from entry conditions', () => {
    const c = compileCatalogue(spec(), TOOLS);
    expect(c.domains.map((d) => d.id)).toEqual(['escalate', 'identify', 'order_status', 'refund']);
    expect(c.fallback).toBe('escalate');
    expect(c.maxRouteChanges).toBe(4);
    const refund = c.domains.find((d) => d.id === 'refund')!;
    expect(refund.tools).toEqual(['shop.get_order@v2', 'shop.refund@v1']);
    expect(refund.writeTools).toEqual(['shop.refund@v1']);
    expect(refund.requiredFacts).toEqual(['order.status', 'user.authenticated']);
    expect(refund.gates).toEqual([
      { tool: 'shop.refund@v1', kind: 'confirmation', requiredFacts: ['order.status', 'user.authenticated'] },
    ]);
    // `neq` holds on an absent fact, so it requires nothing.
    expect(c.domains.find((d) => d.id === 'identify')!.requiredFacts).toEqual([]);
    expect(c.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.isFrozen(refund.gates[0])).toBe(true);
  });

  it('gives the same digest in any order and another digest for another content', () => {
    const a = compileCatalogue(spec(), TOOLS);
    const b = compileCatalogue(spec({ domains: [...domains()].reverse() }), TOOLS);
    expect(b.digest).toBe(a.digest);
    expect(b).toEqual(a);
    const changed = compileCatalogue(spec({ maxRouteChanges: 2 }), TOOLS);
    expect(changed.digest).not.toBe(a.digest);
  });

  it('rejects unknown and ambiguous tools with their paths', () => {
    const ds = domains();
    ds[1] = { ...ds[1]!, tools: ['shop.get_order', 'shop.nope', 'shop.refund@v9'] };
    const issues = issuesOf(spec({ domains: ds }));
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['domains/1/tools/0', 'ambiguous_tool'],
      ['domains/1/tools/1', 'unknown_tool'],
      ['domains/1/tools/2', 'unknown_tool'],
    ]);
  });

  it('rejects duplicate ids, a missing fallback and two fallbacks', () => {
    const dup = domains();
    dup.push({ ...dup[0]! });
    expect(issuesOf(spec({ domains: dup })).map((i) => [i.path, i.code])).toEqual([
      ['domains/4/id', 'duplicate_domain'],
    ]);
    const none = domains().map((d) => ({ ...d, fallback: false }));
    expect(issuesOf(spec({ domains: none })).map((i) => i.code)).toEqual(['no_fallback']);
    const two = domains().map((d) => ({ ...d, fallback: d.id === 'escalate' || d.id === 'identify' }));
    expect(issuesOf(spec({ domains: two })).map((i) => [i.path, i.code])).toContainEqual([
      'domains/3/fallback',
      'multiple_fallbacks',
    ]);
  });

  it('rejects a fallback that needs facts', () => {
    const ds = domains();
    ds[3] = { ...ds[3]!, requiredFacts: ['user.authenticated'] };
    expect(issuesOf(spec({ domains: ds })).map((i) => [i.path, i.code])).toEqual([
      ['domains/3', 'fallback_gated'],
    ]);
  });

  it('rejects a write tool without a gate, and gates that stand before no write of the domain', () => {
    const ds = domains();
    ds[2] = { ...ds[2]!, gates: [] };
    expect(issuesOf(spec({ domains: ds })).map((i) => [i.path, i.code, i.message])).toEqual([
      [
        'domains/2/gates',
        'ungated_write',
        'write tool shop.refund@v1 of refund has no confirmation or approval gate',
      ],
    ]);
    const misplaced = domains();
    misplaced[1] = {
      ...misplaced[1]!,
      gates: [
        { tool: 'shop.get_order@v2', kind: 'approval' },
        { tool: 'shop.refund', kind: 'approval' },
      ],
    };
    expect(issuesOf(spec({ domains: misplaced })).map((i) => [i.path, i.code])).toEqual([
      ['domains/1/gates/0/tool', 'gate_not_write'],
      ['domains/1/gates/1/tool', 'gate_not_in_domain'],
    ]);
    const twice = domains();
    twice[2] = { ...twice[2]!, gates: [...twice[2]!.gates!, { tool: 'shop.refund@v1', kind: 'approval' }] };
    expect(issuesOf(spec({ domains: twice })).map((i) => [i.path, i.code])).toEqual([
      ['domains/2/gates/1/tool', 'duplicate_gate'],
    ]);
  });

  it('rejects a malformed spec by shape, with paths, and never lists more than 50 issues', () => {
    const issues = issuesOf({
      id: 'Shop',
      version: '1',
      domains: [{ id: 'x', version: 'v1', description: 'd', tools: [], extra: 1 }],
    });
    expect(issues.every((i) => i.code === 'invalid_shape')).toBe(true);
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['id', 'version', 'domains/0']));
    const many = Array.from({ length: 60 }, (_, i) => ({
      id: `d${i}`,
      version: 'v1',
      description: 'd',
      tools: ['shop.nope'],
    }));
    const err = thrownBy(() =>
      compileCatalogue(spec({ domains: [...many, domains()[3]!] }), TOOLS),
    ) as CatalogueInvalidError;
    expect(err.issues).toHaveLength(50);
    expect(err.details['total']).toBe(60);
    expect(issuesOf(null).map((i) => i.code)).toEqual(['invalid_shape']);
  });
});
