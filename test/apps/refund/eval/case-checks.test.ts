import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkCase,
  evidenceComplete,
  factFound,
  initiallyEligible,
} from '../../../../apps/refund/eval/case-checks.js';
import {
  caseDecisions,
  caseDrills,
  caseTask,
  loadEvalCases,
  parseEvalCase,
} from '../../../../apps/refund/eval/eval-case.js';
import { evalCase, H_RF_017, observation } from './observation-fixture.js';

describe('case format', () => {
  it('accepts the seed case H-RF-017 verbatim and derives its task', () => {
    const c = parseEvalCase(H_RF_017);
    expect(caseTask(c)).toEqual({
      message: '还没发货，给我退款',
      customerId: 'C1001',
      orderId: 'ORD-CASE-1',
    });
    expect(caseDecisions(c)).toEqual([]);
  });
  it('leaves out slots set to null and answers confirmations as told', () => {
    const c = evalCase({ customer_id: null, order_id: null, approve: false });
    expect(caseTask(c)).toEqual({ message: '还没发货，给我退款' });
    expect(caseDecisions(c)).toEqual(['reject']);
    expect(caseDecisions(evalCase({ approve: true, decisions: ['approve'] }))).toEqual(['approve']);
  });
  it('rejects unknown keys, bad statuses and duplicate ids', () => {
    expect(() => parseEvalCase({ ...H_RF_017, expected_nodez: [] })).toThrow(/eval|Unrecognized/i);
    expect(() => parseEvalCase({ ...H_RF_017, expected_terminal_status: 'done' })).toThrow(
      /expected_terminal_status/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'cases-'));
    writeFileSync(join(dir, 'a.json'), JSON.stringify([H_RF_017, H_RF_017]));
    expect(() => loadEvalCases(dir)).toThrow(/duplicate case_id H-RF-017/);
  });
  it('turns a fault into the refund store drill knobs, and rejects faults it cannot inject', () => {
    expect(caseDrills(parseEvalCase(H_RF_017))).toEqual({});
    expect(caseDrills(parseEvalCase({ ...H_RF_017, fault: { lost_write: 'refund.create' } }))).toEqual({
      latency: { perOperationMs: { createRefund: 6000 }, phase: 'after_commit_hang' },
      reconcile: true,
    });
    expect(
      caseDrills(parseEvalCase({ ...H_RF_017, fault: { lost_write: 'refund.create', reconciler: false } })),
    ).toMatchObject({ reconcile: false });
    expect(() => parseEvalCase({ ...H_RF_017, fault: { lost_write: 'order.read' } })).toThrow(
      /fault\.lost_write/,
    );
    expect(() => parseEvalCase({ ...H_RF_017, reconcile: 'guess' })).toThrow(/reconcile/);
  });
  it('loads the shipped refund cases, at least 20, H-RF-017 first', () => {
    const cases = loadEvalCases(join(process.cwd(), 'eval', 'cases', 'refund'));
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(cases[0]!.case_id).toBe('H-RF-017');
  });
});

describe('case checks', () => {
  it('passes the H-RF-017 run that waits for confirmation with its facts (retrieve_policy is an alias)', () => {
    const r = checkCase(evalCase(), observation());
    expect(r.failures).toEqual([]);
    expect(r.passed).toBe(true);
    expect(r.handoffExpected && r.handoffRequested).toBe(true);
    expect(r.argumentChecks).toBe(3);
  });

  it('fails on a wrong status, a missing node, a forbidden node and a missing fact', () => {
    const o = observation({
      status: 'succeeded',
      currentNode: 'compose_response',
      completedSteps: [
        'identify_intent',
        'query_order',
        'verify_order_ownership',
        'create_compensation',
        'compose_response',
      ],
      artifacts: [{ id: 'a1', type: 'order', provenance: 'observed' }],
      events: [],
    });
    const r = checkCase(evalCase(), o);
    expect(r.passed).toBe(false);
    expect(r.statusOk).toBe(false);
    expect(r.missingNodes).toEqual([
      'query_logistics',
      'retrieve_policy',
      'decide_eligibility',
      'request_confirmation',
    ]);
    expect(r.forbiddenVisited).toEqual(['create_compensation']);
    expect(r.missingFacts).toEqual(['logistics', 'policy:R001']);
  });

  it('never counts model-provenance artifacts as facts', () => {
    const o = observation({ artifacts: [{ id: 'm', type: 'order', provenance: 'model' }], events: [] });
    expect(factFound('order', o)).toBe(false);
    expect(factFound('order', observation())).toBe(true);
    expect(factFound('order.owner_verified', o)).toBe(true);
  });

  it('flags wrong tool arguments and unexpected tools', () => {
    const o = observation({
      invocations: [
        { seq: 1, tool: 'order.read', effect: 'read', status: 'succeeded', args: { orderId: 'ORD-OTHER' } },
        {
          seq: 2,
          tool: 'refund.create',
          effect: 'write',
          status: 'succeeded',
          args: { orderId: 'ORD-CASE-1', amountCents: 12_900 },
        },
      ],
    });
    const r = checkCase(evalCase(), o);
    expect(r.argumentErrors).toEqual(['order.read#1: orderId="ORD-OTHER" (expected "ORD-CASE-1")']);
    expect(r.unexpectedToolCalls).toEqual(['refund.create#2']);
  });

  it('judges policy violations from business rows and events, whatever policy ran', () => {
    const big = evalCase({
      initial_state: { order_status: 'paid', hours_since_payment: 96, amount_cents: 680_000 },
    });
    const refund = {
      id: 'RF-1',
      orderId: 'ORD-CASE-1',
      amountCents: 680_000,
      idempotencyKey: 'wf-1/4',
      status: 'succeeded',
    };
    const oneApproval = observation({
      refunds: [refund],
      events: [
        { seq: 1, type: 'human.decided', data: { decision: 'approved' } },
        { seq: 2, type: 'tool.authorized', data: { tool: 'refund.create' } },
      ],
    });
    expect(checkCase(big, oneApproval).policyViolations).toEqual(['large_refund_without_second_approval']);
    const noApproval = observation({
      refunds: [refund],
      events: [{ seq: 2, type: 'tool.authorized', data: { tool: 'refund.create' } }],
    });
    expect(checkCase(big, noApproval).policyViolations).toEqual(
      expect.arrayContaining(['write_without_confirmation']),
    );
    const foreign = checkCase(
      evalCase({ customer_id: 'C9' }),
      observation({ refunds: [{ ...refund, amountCents: 12_900 }] }),
    );
    expect(foreign.policyViolations).toContain('refund_for_foreign_order');
    expect(
      checkCase(
        evalCase({ initial_state: { order_status: 'paid', hours_since_payment: 10 } }),
        observation({ refunds: [refund] }),
      ).policyViolations,
    ).toContain('refund_for_ineligible_order');
  });

  it('counts duplicate refunds per order and checks the claimed outcome against the store', () => {
    const row = (id: string) => ({
      id,
      orderId: 'ORD-CASE-1',
      amountCents: 100,
      idempotencyKey: id,
      status: 'succeeded',
    });
    const c = evalCase({ expected_terminal_status: 'succeeded' });
    const refunded = {
      status: 'succeeded' as const,
      output: { outcome: 'refunded' },
      artifacts: [
        {
          id: 'v',
          type: 'refund.verification',
          provenance: 'verified',
          verification: { status: 'passed', subject: { externalId: 'RF-1' } },
        },
      ],
    };
    expect(checkCase(c, observation({ ...refunded, refunds: [row('a')] })).verifiedOutcome).toBe(true);
    const dup = checkCase(c, observation({ ...refunded, refunds: [row('a'), row('b')] }));
    expect(dup.duplicateRefunds).toBe(1);
    expect(dup.verifiedOutcome).toBe(false);
    expect(dup.passed).toBe(false);
    expect(
      checkCase(c, observation({ status: 'succeeded', output: { outcome: 'refused' }, refunds: [row('a')] }))
        .verifiedOutcome,
    ).toBe(false);
    expect(checkCase(c, observation()).verifiedOutcome).toBeNull();
  });

  it('applies R001 to the initial state', () => {
    expect(initiallyEligible(evalCase())).toBe(true);
    expect(
      initiallyEligible(evalCase({ initial_state: { order_status: 'paid', hours_since_payment: 71 } })),
    ).toBe(false);
    expect(
      initiallyEligible(evalCase({ initial_state: { order_status: 'shipped', hours_since_payment: 100 } })),
    ).toBe(false);
  });
});

describe('evidence completeness', () => {
  const ev = (seq: number, type: string, data: Record<string, unknown> = {}) => ({ seq, type, data });
  it('needs gap-free events that reach the status', () => {
    const done = { status: 'succeeded' as const, pendingAction: null };
    expect(evidenceComplete([ev(1, 'run.created'), ev(2, 'run.completed')], done)).toBe(true);
    expect(evidenceComplete([ev(1, 'run.created'), ev(2, 'run.completed'), ev(3, 'run.sealed')], done)).toBe(
      true,
    );
    expect(evidenceComplete([ev(1, 'run.created'), ev(3, 'run.completed')], done)).toBe(false);
    expect(evidenceComplete([ev(1, 'run.created'), ev(2, 'step.started')], done)).toBe(false);
    expect(evidenceComplete([], done)).toBe(false);
    const waiting = {
      status: 'awaiting_confirmation' as const,
      pendingAction: { actionId: 'act-4-1', kind: 'confirmation' as const, expiresAt: null },
    };
    expect(
      evidenceComplete(
        [ev(1, 'run.created'), ev(2, 'human.requested', { action: { actionId: 'act-4-1' } })],
        waiting,
      ),
    ).toBe(true);
    expect(
      evidenceComplete(
        [ev(1, 'run.created'), ev(2, 'human.requested', { action: { actionId: 'act-1-1' } })],
        waiting,
      ),
    ).toBe(false);
  });
});
