import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  GuardrailConfigError,
  OutputReasonCodes,
  checkOutput,
} from '../../../../src/workflows/guardrails/index.js';
import {
  emptyRun,
  observedOnlyRun,
  observedRefund,
  verification,
  verifiedRefundRun,
  createInvocation,
  verifyInvocation,
} from './refund-evidence.js';

const REFUNDED_EN = 'Your refund RF-1 of 120.00 CNY for order O-1001 has been created and verified.';
const REFUNDED_ZH = '已为您退款 120.00 元，请留意到账。';

describe('output guardrail: faithfulness', () => {
  it('blocks a refund claim with no trusted artifact (EN and ZH), and sends nothing', () => {
    for (const message of [REFUNDED_EN, REFUNDED_ZH, 'We have issued a full refund.', '退款已完成。']) {
      const r = checkOutput({ output: { message }, ...emptyRun });
      expect(r.verdict, message).toBe('block');
      expect(r.output).toBeNull();
      expect(r.reasonCodes).toContain(OutputReasonCodes.unsupportedClaim);
      expect(r.findings[0]).toMatchObject({ ruleId: 'claim.refund', path: '/message', action: 'block' });
    }
  });

  it('passes the same claim when the refund was observed and a later check verified it', () => {
    const r = checkOutput({ output: { outcome: 'refunded', message: REFUNDED_EN }, ...verifiedRefundRun });
    expect(r).toMatchObject({ verdict: 'pass', reasonCodes: [], findings: [] });
    expect(r.output).toEqual({ outcome: 'refunded', message: REFUNDED_EN });
  });

  it('an observed refund without a passed verification does not support a refund claim', () => {
    expect(checkOutput({ output: REFUNDED_EN, ...observedOnlyRun }).verdict).toBe('block');
    const failed = {
      artifacts: [observedRefund, verification('failed')],
      invocations: [createInvocation, verifyInvocation],
    };
    expect(checkOutput({ output: REFUNDED_EN, ...failed }).verdict).toBe('block');
    expect(
      checkOutput({ output: REFUNDED_EN, ...observedOnlyRun }, { claimRequirements: { refund: 'observed' } })
        .verdict,
    ).toBe('pass');
  });

  it('does not trust artifacts a model made or no succeeded invocation vouches for', () => {
    const forged = { ...observedRefund, provenance: 'model' as const };
    expect(
      checkOutput({
        output: REFUNDED_EN,
        artifacts: [forged, verification('passed')],
        invocations: [createInvocation, verifyInvocation],
      }).verdict,
    ).toBe('block');
    const unvouched = {
      artifacts: verifiedRefundRun.artifacts,
      invocations: [{ ...createInvocation, status: 'failed_terminal' as const }, verifyInvocation],
    };
    expect(checkOutput({ output: REFUNDED_EN, ...unvouched }).verdict).toBe('block');
    const checkedBefore = {
      artifacts: verifiedRefundRun.artifacts,
      invocations: [{ ...createInvocation, seq: 5 }, verifyInvocation],
    };
    expect(checkOutput({ output: REFUNDED_EN, ...checkedBefore }).verdict).toBe('block');
  });

  it('negations, conditions and promises are not claims', () => {
    for (const message of [
      'The refund for order O-1001 was not confirmed, so nothing was refunded.',
      'We cannot refund order O-1001: not eligible.',
      'Once approved, you will be refunded.',
      '订单尚未退款。',
      'No refund has been confirmed yet.',
      'If your refund was created, you will see it in your account.',
      "You'll soon be refunded once the parcel is back.",
    ]) {
      expect(checkOutput({ output: { message }, ...emptyRun }).verdict, message).toBe('pass');
    }
  });

  it('modals elsewhere in the clause do not hide a claim', () => {
    for (const message of [
      'We can confirm your refund has been issued.',
      'Refund created for order O-1001.',
      'refund done',
    ]) {
      expect(checkOutput({ output: { message }, ...emptyRun }).verdict, message).toBe('block');
      expect(checkOutput({ output: { message }, ...verifiedRefundRun }).verdict, message).toBe('pass');
    }
  });

  it('rewrite mode replaces the claiming sentence with what is verified, keeping the rest', () => {
    const message = `Thanks for waiting. ${REFUNDED_EN} Anything else?`;
    const none = checkOutput({ output: { message }, ...emptyRun }, { mode: 'rewrite' });
    expect(none.verdict).toBe('rewritten');
    expect(none.output).toEqual({
      message: 'Thanks for waiting. No refund has been confirmed yet. Anything else?',
    });
    expect(none.findings[0]).toMatchObject({ code: OutputReasonCodes.unsupportedClaim, action: 'rewrite' });

    const observed = checkOutput({ output: { message }, ...observedOnlyRun }, { mode: 'rewrite' });
    expect(observed.output).toEqual({
      message: 'Thanks for waiting. A refund was recorded, but it is not verified yet. Anything else?',
    });

    const zh = checkOutput({ output: '您好。已为您退款，请查收。', ...emptyRun }, { mode: 'rewrite' });
    expect(zh.output).toBe('您好。目前没有已确认的退款。');
  });

  it('rewrite mode still blocks a claim that is a whole field value (an enum-like outcome)', () => {
    const r = checkOutput(
      { output: { outcome: 'refunded', message: REFUNDED_EN }, ...emptyRun },
      { mode: 'rewrite' },
    );
    expect(r.verdict).toBe('block');
    expect(r.findings.find((f) => f.path === '/outcome')).toMatchObject({ action: 'block' });
  });

  it('checks other effects: a pushed branch and a deployment need observed artifacts', () => {
    expect(checkOutput({ output: 'I pushed the branch agent/fix-1.', ...emptyRun }).verdict).toBe('block');
    expect(checkOutput({ output: '服务已部署。', ...emptyRun }).verdict).toBe('block');
    const branch = {
      artifacts: [
        {
          id: 'b1',
          type: 'git.remote_branch',
          schemaVersion: '1',
          provenance: 'observed' as const,
          data: { remote: 'origin', branch: 'agent/fix-1', sha: 'abcdef1' },
        },
      ],
      invocations: [{ seq: 1, status: 'succeeded' as const, artifactIds: ['b1'] }],
    };
    expect(checkOutput({ output: 'I pushed the branch agent/fix-1.', ...branch }).verdict).toBe('pass');
  });
});

describe('output guardrail: privacy', () => {
  it('applies mask.phone (138****1001) and reports a rewrite', () => {
    const r = checkOutput({
      output: { message: 'We will call you at 13800001001 or +86 139-1234-5678.', phone: '13800001001' },
      ...emptyRun,
      obligations: ['mask.phone', 'confirm.user.v2'],
    });
    expect(r.verdict).toBe('rewritten');
    expect(r.output).toEqual({
      message: 'We will call you at 138****1001 or +86 139****5678.',
      phone: '138****1001',
    });
    expect(r.reasonCodes).toEqual([OutputReasonCodes.masked]);
    expect(JSON.stringify(r.findings)).not.toContain('13800001001');
  });

  it('without the obligation phone numbers are left alone; mask.email and mask.id_number mask theirs', () => {
    expect(checkOutput({ output: 'call 13800001001', ...emptyRun }).verdict).toBe('pass');
    const r = checkOutput({
      output: 'mail zhang@example.com, id 11010519491231002X',
      ...emptyRun,
      obligations: ['mask.email', 'mask.id_number'],
    });
    expect(r.output).toBe('mail z***@example.com, id 110***********002X');
  });

  it('never lets restricted data out: secrets, card numbers, restricted fields', () => {
    for (const output of [
      'your key is sk-abcdefghijklmnopqrstuvwxyz123',
      'card 4111 1111 1111 1111 was charged',
      { apiKey: 'abc', message: 'ok' },
    ]) {
      const r = checkOutput({ output, ...emptyRun, obligations: ['mask.phone'] });
      expect(r.verdict).toBe('block');
      expect(r.output).toBeNull();
      expect(r.reasonCodes).toContain(OutputReasonCodes.restrictedData);
    }
  });

  it('fails closed on a mask obligation it does not know', () => {
    const r = checkOutput({ output: 'hello', ...emptyRun, obligations: ['mask.address'] });
    expect(r).toMatchObject({ verdict: 'block', reasonCodes: [OutputReasonCodes.obligationUnsupported] });
  });
});

describe('output guardrail: commitment boundaries', () => {
  it('blocks an amount above limit.refund_amount=5000 and passes one within it', () => {
    const over = checkOutput({
      output: 'We will refund ¥5,200.00 for order O-1.',
      ...emptyRun,
      obligations: ['limit.refund_amount=5000'],
    });
    expect(over).toMatchObject({ verdict: 'block', reasonCodes: [OutputReasonCodes.amountOverApproved] });
    const within = checkOutput({
      output: '我们将为您退款 4999 元。',
      ...emptyRun,
      obligations: ['limit.refund_amount=5000'],
    });
    expect(within.verdict).toBe('pass');
  });

  it('the observed refund amount bounds what the response may state', () => {
    const ok = checkOutput({
      output: REFUNDED_EN,
      ...verifiedRefundRun,
      obligations: ['limit.refund_amount=5000'],
    });
    expect(ok.verdict).toBe('pass');
    const more = checkOutput({
      output: REFUNDED_EN.replace('120.00', '150.00'),
      ...verifiedRefundRun,
      obligations: ['limit.refund_amount=5000'],
    });
    expect(more).toMatchObject({ verdict: 'block', reasonCodes: [OutputReasonCodes.amountOverApproved] });
  });

  it('amounts outside refund sentences are not commitments; unbounded refund amounts are flagged', () => {
    expect(
      checkOutput({
        output: 'Your order total was 6000 CNY.',
        ...emptyRun,
        obligations: ['limit.refund_amount=5000'],
      }).verdict,
    ).toBe('pass');
    const r = checkOutput({ output: 'We will refund 300 CNY.', ...emptyRun });
    expect(r).toMatchObject({ verdict: 'pass', reasonCodes: [OutputReasonCodes.amountUnverified] });
    expect(r.findings[0]?.action).toBe('flag');
    expect(
      checkOutput(
        { output: 'We will refund 300 CNY.', ...emptyRun },
        { actions: { amountUnverified: 'block', dateUnverified: 'block' } },
      ).verdict,
    ).toBe('block');
  });

  it('blocks dates and time promises nobody verified; passes those trusted data states', () => {
    expect(checkOutput({ output: 'The money arrives on 2026-07-20.', ...emptyRun }).reasonCodes).toEqual([
      OutputReasonCodes.dateUnverified,
    ]);
    expect(checkOutput({ output: '预计7月20日到账。', ...emptyRun }).verdict).toBe('block');
    expect(checkOutput({ output: 'It arrives within 3 business days.', ...emptyRun }).verdict).toBe('block');
    expect(checkOutput({ output: 'Refund created on 2026-07-15.', ...verifiedRefundRun }).verdict).toBe(
      'pass',
    );
    expect(
      checkOutput(
        { output: 'It arrives within 3 business days.', ...emptyRun },
        { allowedPromises: ['Refunds arrive within 3 business days'] },
      ).verdict,
    ).toBe('pass');
    expect(
      checkOutput({ output: 'It arrives on July 20.', ...emptyRun }, { verifiedDates: ['2026-07-20'] })
        .verdict,
    ).toBe('pass');
  });
});

describe('output guardrail: format', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['outcome', 'message'],
    properties: { outcome: { type: 'string', enum: ['refunded', 'refused'] }, message: { type: 'string' } },
  };

  it('blocks a response outside the JSON schema, with the failing pointer', () => {
    const r = checkOutput(
      { output: { outcome: 'maybe', message: 'x' }, ...emptyRun },
      { format: { kind: 'json_schema', schema } },
    );
    expect(r.verdict).toBe('block');
    expect(r.findings[0]).toMatchObject({
      code: OutputReasonCodes.formatInvalid,
      path: '/outcome',
      ruleId: 'format.enum',
    });
    expect(
      checkOutput(
        { output: { outcome: 'refused', message: 'x' }, ...emptyRun },
        { format: { kind: 'json_schema', schema } },
      ).verdict,
    ).toBe('pass');
  });

  it('checks the rewritten response, and accepts zod schemas', () => {
    const zodFormat = { kind: 'zod' as const, schema: z.object({ message: z.string().max(40) }) };
    const r = checkOutput(
      { output: { message: `Hi. ${REFUNDED_EN}` }, ...emptyRun },
      { mode: 'rewrite', format: zodFormat },
    );
    expect(r).toMatchObject({
      verdict: 'rewritten',
      output: { message: 'Hi. No refund has been confirmed yet.' },
    });
    expect(
      checkOutput({ output: { message: 'x'.repeat(41) }, ...emptyRun }, { format: zodFormat }).findings[0],
    ).toMatchObject({ path: '/message', ruleId: 'format.too_big' });
  });

  it('an output schema that does not compile is a configuration error', () => {
    expect(() =>
      checkOutput({ output: {}, ...emptyRun }, { format: { kind: 'json_schema', schema: { type: 'nope' } } }),
    ).toThrow(GuardrailConfigError);
  });

  it('a response too deep to check is blocked', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i += 1) deep = [deep];
    expect(checkOutput({ output: deep, ...emptyRun })).toMatchObject({
      verdict: 'block',
      reasonCodes: [OutputReasonCodes.oversize],
    });
  });
});
