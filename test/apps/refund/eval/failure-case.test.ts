import { describe, expect, it } from 'vitest';
import { checkCase } from '../../../../apps/refund/eval/case-checks.js';
import { caseDrills, parseEvalCase } from '../../../../apps/refund/eval/eval-case.js';
import { refundFailureCase } from '../../../../apps/refund/eval/sample-case.js';
import { parseSince } from '../../../../src/cli/time-arg.js';
import type { FailureSample } from '../../../../src/client/failures/failure-sample.js';
import { scrubSecrets, SECRET_REDACTED } from '../../../../src/client/failures/scrub-secrets.js';
import { isHarnessError } from '../../../../src/contract/errors.js';
import { evalCase, observation } from './observation-fixture.js';
import { RUN_VERSIONS } from '../../../unit/activities/store/fixtures.js';

const versions = RUN_VERSIONS;

function sample(over: Partial<FailureSample> = {}): FailureSample {
  return {
    format: 1,
    failure: {
      runId: 'run-1',
      reason: 'failed',
      status: 'failed',
      code: 'completion.not_satisfied',
      message: 'no verification',
      versions,
      createdAt: '2026-02-03T00:00:00.000Z',
      endedAt: '2026-02-03T00:00:09.000Z',
      terminalSeq: 40,
      budget: null,
    },
    versions: { ...versions, patches: ['agent-run-guardrails-v1'], workflowType: 'agentRun', taskQueue: 'q' },
    inputs: {
      start: {
        profile: { name: 'refund.graph', version: 'v1' },
        task: { message: 'refund ORD-9', customerId: 'C9', orderId: 'ORD-9' },
      },
      signals: [{ name: 'approve', args: { actionId: 'a1', actor: 'ops' } }],
      updates: [],
      startedAt: '2026-02-03T00:00:00.000Z',
    },
    invocations: [
      {
        seq: 5,
        tool: 'refund.verify',
        version: 'v1',
        effect: 'read',
        attempts: 1,
        args: {},
        status: 'failed_terminal',
        errorCode: 'refund.verify_unavailable',
        errorMessage: 'down',
        output: null,
        externalId: null,
        artifactIds: [],
      },
    ],
    artifacts: [
      {
        id: 'o',
        type: 'order',
        provenance: 'observed',
        data: {
          id: 'ORD-9',
          customerId: 'C9',
          status: 'paid',
          amountCents: 1200,
          currency: 'CNY',
          paidAt: '2026-01-31T00:00:00.000Z',
          phone: '138****1001',
        },
      },
      {
        id: 'l',
        type: 'logistics',
        provenance: 'observed',
        data: { orderId: 'ORD-9', status: 'not_shipped' },
      },
    ],
    events: {
      events: [{ type: 'step.completed', data: { stepId: 'query_order' } }],
      omittedSequences: [],
      appliedObligations: [],
    },
    historyEncoded: false,
    ...over,
  };
}

describe('failure samples as refund evaluation cases', () => {
  it('seeds what the run observed, injects its failed calls and pins its end', () => {
    const made = refundFailureCase(sample());
    expect(made.id).toBe('prod-run-1');
    const c = parseEvalCase(made.case);
    expect(c).toMatchObject({
      initial_state: {
        order_id: 'ORD-9',
        order_status: 'paid',
        logistics_status: 'not_shipped',
        hours_since_payment: 72,
        customer_id: 'C9',
        amount_cents: 1200,
      },
      decisions: ['approve'],
      tool_failures: [{ tool: 'refund.verify', code: 'refund.verify_unavailable' }],
      expected_terminal_status: 'failed',
      expected_terminal_code: 'completion.not_satisfied',
      expected_nodes: ['query_order'],
      profile: 'refund.graph@v1',
      policy: 'refund.rules@v1',
    });
    expect(c.initial_state.phone).toBeUndefined();
    expect(caseDrills(c).toolFailures).toEqual(c.tool_failures);
  });

  it('refuses a sample whose run observed no order, with a typed error', () => {
    let err: unknown;
    try {
      refundFailureCase(sample({ artifacts: [] }));
    } catch (e) {
      err = e;
    }
    expect(isHarnessError(err, 'eval.sample_case_invalid')).toBe(true);
  });

  it('a case with an expected terminal code fails on another code', () => {
    const c = evalCase({
      expected_terminal_status: 'failed',
      expected_terminal_code: 'completion.not_satisfied',
    });
    const other = checkCase(
      c,
      observation({ status: 'failed', terminalReason: { code: 'run.internal_error', message: 'x' } }),
    );
    expect(other.statusOk).toBe(false);
    expect(other.failures).toContain('terminal code run.internal_error, expected completion.not_satisfied');
    expect(() => parseEvalCase({ ...c, expected_terminal_code: 'Not A Code' })).toThrow(
      /expected_terminal_code/,
    );
  });
});

describe('failure sample helpers', () => {
  it('scrubs secrets inside any text, at any depth', () => {
    const key = 'sk-live-abcdefghijklmnopqrstuvwxyz123';
    expect(scrubSecrets({ a: [`my key is ${key} ok`], n: 3 })).toEqual({
      a: [`my key is ${SECRET_REDACTED} ok`],
      n: 3,
    });
  });

  it('reads --since as an ISO time or an age, and refuses anything else (exit 2)', () => {
    const now = Date.parse('2026-02-03T12:00:00.000Z');
    expect(parseSince('24h', now)).toBe('2026-02-02T12:00:00.000Z');
    expect(parseSince('2026-02-03T13:00:00+02:00', now)).toBe('2026-02-03T11:00:00.000Z');
    for (const bad of ['yesterday', '2026-02-03', '5y'])
      expect(() => parseSince(bad, now)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
