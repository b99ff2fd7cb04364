import type {
  CatalogueSpec,
  CapabilityDomainSpec,
} from '../../../../src/workflows/routing/capability-domain.js';
import type { CatalogueTool } from '../../../../src/workflows/routing/catalogue-tools.js';

/** A small shop: identity, order reads, a refund write, an escalation. */
export const TOOLS: CatalogueTool[] = [
  { name: 'shop.find_user', version: 'v1', effect: 'read' },
  { name: 'shop.get_order', version: 'v1', effect: 'read' },
  { name: 'shop.get_order', version: 'v2', effect: 'read' },
  { name: 'shop.refund', version: 'v1', effect: 'write' },
  { name: 'shop.transfer', version: 'v1', effect: 'read' },
];

export function domains(): CapabilityDomainSpec[] {
  return [
    {
      id: 'identify',
      version: 'v1',
      description: 'who the customer is',
      tools: ['shop.find_user'],
      entry: [{ fact: 'user.authenticated', op: 'neq', value: true }],
      establishes: ['user.authenticated'],
    },
    {
      id: 'order_status',
      version: 'v1',
      description: 'read an order',
      tools: ['shop.get_order@v2'],
      entry: [{ fact: 'user.authenticated', op: 'eq', value: true }],
      establishes: ['order.status'],
    },
    {
      id: 'refund',
      version: 'v1',
      description: 'refund a delivered order',
      tools: ['shop.get_order@v2', 'shop.refund'],
      entry: [
        { fact: 'user.authenticated', op: 'eq', value: true },
        { fact: 'order.status', op: 'in', value: ['delivered'] },
      ],
      gates: [
        { tool: 'shop.refund', kind: 'confirmation', requiredFacts: ['user.authenticated', 'order.status'] },
      ],
    },
    {
      id: 'escalate',
      version: 'v1',
      description: 'a human takes over',
      tools: ['shop.transfer'],
      fallback: true,
    },
  ];
}

export function spec(over: Partial<CatalogueSpec> = {}): CatalogueSpec {
  return { id: 'shop.domains', version: 'v1', domains: domains(), ...over };
}

/** What `fn` threw (fails the test if it did not throw). */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
