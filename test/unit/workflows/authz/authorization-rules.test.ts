import { describe, expect, it } from 'vitest';
import {
  AuthorizationRulesSchema,
  DEFAULT_AUTHORIZATION,
} from '../../../../src/workflows/authz/authorization-rules.js';

describe('authorization rules', () => {
  it('DEFAULT_AUTHORIZATION is the parse of the default rules (written out so the import parses nothing)', () => {
    const parsed = AuthorizationRulesSchema.parse({
      approve: [{ id: 'approvers', roles: ['approver'] }],
      reconcile: { roles: ['operator'] },
      input: { roles: ['operator'], requester: true },
      cancel: { roles: ['operator'], requester: true },
    });
    expect(DEFAULT_AUTHORIZATION).toStrictEqual(parsed);
    expect(AuthorizationRulesSchema.parse(DEFAULT_AUTHORIZATION)).toStrictEqual(DEFAULT_AUTHORIZATION);
  });
});
