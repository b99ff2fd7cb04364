import { describe, expect, it } from 'vitest';
import {
  isCatalogueReasonCode,
  isValidObligation,
  isValidReasonCode,
  ReasonCodes,
} from '../../../../src/workflows/policy/reason-codes.js';

describe('reason code catalogue', () => {
  it('holds unique, stable, policy.-namespaced codes', () => {
    const codes = Object.values(ReasonCodes);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^policy\.[a-z_]+$/);
    expect(ReasonCodes.toolNotAllowed).toBe('policy.tool_not_allowed');
    expect(ReasonCodes.decisionExpired).toBe('policy.decision_expired');
  });

  it('accepts catalogue codes and well-formed custom codes outside policy.', () => {
    expect(isCatalogueReasonCode('policy.path_escape')).toBe(true);
    expect(isValidReasonCode('policy.path_escape')).toBe(true);
    expect(isValidReasonCode('refund.amount_over_auto_limit')).toBe(true);
    expect(isValidReasonCode('policy.made_up')).toBe(false);
    expect(isValidReasonCode('Refund.Big')).toBe(false);
    expect(isValidReasonCode('nodot')).toBe(false);
    expect(isValidReasonCode(`a.${'b'.repeat(100)}`)).toBe(false);
  });

  it('validates obligations of the seed', () => {
    for (const o of [
      'limit.refund_amount=5000',
      'confirm.user.v2',
      'mask.phone',
      'verify.order_owner',
      'log.audit.high_risk',
    ]) {
      expect(isValidObligation(o)).toBe(true);
    }
    for (const o of ['limit', 'limit.x=', 'mask.phone; rm -rf', 'LIMIT.x', 'limit.x=a b'])
      expect(isValidObligation(o)).toBe(false);
  });
});
