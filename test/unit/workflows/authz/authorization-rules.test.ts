import { describe, expect, it } from 'vitest';
import {
  AuthorizationRulesSchema,
  DEFAULT_AUTHORIZATION,
} from '../../../../src/workflows/authz/authorization-rules.js';
import { RulesPolicy } from '../../../../src/workflows/policy/rules-policy.js';

const rulesPolicy = (authorization: unknown) =>
  new RulesPolicy({
    name: 'shop.rules',
    version: 'v1',
    rules: [],
    default: { decision: 'deny', reasonCodes: ['policy.no_rule_matched'] },
    authorization: authorization as never,
  });

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
    expect(AuthorizationRulesSchema.parse({})).toStrictEqual(DEFAULT_AUTHORIZATION);
  });

  it('a key left out is the default; the keys given stand', () => {
    const onlyApprove = rulesPolicy({ approve: [{ id: 'managers', roles: ['manager'] }] }).authorization;
    expect(onlyApprove).toStrictEqual({
      ...DEFAULT_AUTHORIZATION,
      approve: [{ id: 'managers', when: {}, roles: ['manager'], approvals: 1 }],
    });
    const onlyCancel = rulesPolicy({ cancel: { roles: ['support'] } }).authorization;
    expect(onlyCancel).toStrictEqual({
      ...DEFAULT_AUTHORIZATION,
      cancel: { roles: ['support'], requester: false },
    });
    // defaults are copies: changing one policy's rules changes no other's, nor the defaults
    onlyCancel!.reconcile.roles.push('intruder');
    expect(DEFAULT_AUTHORIZATION.reconcile.roles).toEqual(['operator']);
    expect(AuthorizationRulesSchema.parse({}).reconcile.roles).toEqual(['operator']);
  });

  it('refuses an unknown key naming the four, and malformed values naming the field', () => {
    expect(() => rulesPolicy({ reconcil: { roles: ['operator'] } })).toThrow(
      /unknown key reconcil: authorization takes approve, reconcile, input and cancel/,
    );
    expect(() => rulesPolicy({ reconcile: {} })).toThrow(/authorization\.reconcile\.roles/);
    expect(() => rulesPolicy({ approve: [] })).toThrow(/authorization\.approve/);
    expect(() => rulesPolicy({ input: { roles: ['operator'], requester: 'yes' } })).toThrow(
      expect.objectContaining({ code: 'policy.config_invalid' }),
    );
  });
});
