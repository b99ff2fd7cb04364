import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';
import { refundRules } from './refund-rules.js';

const doc = readFileSync(path.resolve(import.meta.dirname, '../../../../docs/policies.md'), 'utf8');

describe('docs/policies.md', () => {
  it('shows exactly the refund rules the tests exercise, and they construct', () => {
    const block = /<!-- refund-rules -->\s*```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    const parsed: unknown = JSON.parse(block ?? '');
    expect(parsed).toEqual(refundRules);
    expect(new RulesPolicy(parsed as typeof refundRules).name).toBe('refund-cn');
  });
});
