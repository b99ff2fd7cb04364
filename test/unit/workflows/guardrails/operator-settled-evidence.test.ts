import { describe, expect, it } from 'vitest';
import { checkOutput, type EvidenceInvocation } from '../../../../src/workflows/guardrails/index.js';
import { backingOf, trustedEvidence } from '../../../../src/workflows/guardrails/run-evidence.js';
import { refundGuardrails } from '../../../../apps/refund/workflow/refund-guardrails.js';
import { verification, verifyInvocation } from './refund-evidence.js';

/** refund.create #2 was lost; a person settled it as succeeded naming RF-1; refund.verify #3 checked RF-1. */
const settledCreate: EvidenceInvocation = {
  seq: 2,
  tool: 'refund.create',
  effect: 'write',
  status: 'succeeded',
  artifactIds: [],
  externalId: 'RF-1',
  resolvedBy: 'operator:ops@example.com',
};
const claim = { outcome: 'refunded', message: 'Your refund RF-1 has been created and verified.' };

describe('output guardrail: a refund a person settled and a later check verified', () => {
  it('backs the refund claim with the verification of the external id the person named', () => {
    const input = {
      output: claim,
      artifacts: [verification('passed')],
      invocations: [settledCreate, verifyInvocation],
    };
    // The refund app names refund.create as the write behind a refund claim (its guardrail settings).
    const result = checkOutput(input, refundGuardrails.output);
    expect(result.verdict).toBe('pass');
    expect(result.output).toEqual(claim);
    // The core's defaults name no app tool: there, a settled write does not stand for the claim.
    expect(checkOutput(input).verdict).not.toBe('pass');
  });

  it("blocks or rewrites the claim on the person's word alone, a failed check, or a check of another id", () => {
    const cases: { artifacts: ReturnType<typeof verification>[]; invocations: EvidenceInvocation[] }[] = [
      { artifacts: [], invocations: [settledCreate] },
      { artifacts: [verification('failed')], invocations: [settledCreate, verifyInvocation] },
      {
        artifacts: [verification('passed')],
        invocations: [{ ...settledCreate, externalId: 'RF-2' }, verifyInvocation],
      },
      {
        artifacts: [verification('passed')],
        invocations: [{ ...settledCreate, resolvedBy: 'reconciler' }, verifyInvocation],
      },
      {
        artifacts: [verification('passed')],
        invocations: [{ ...settledCreate, seq: 4 }, verifyInvocation],
      },
    ];
    for (const c of cases) {
      const result = checkOutput({ output: claim, ...c }, refundGuardrails.output);
      expect(result.verdict, JSON.stringify(c.invocations)).not.toBe('pass');
      expect(result.reasonCodes).toContain('guardrail.output.unsupported_claim');
    }
  });

  it('counts the settled write only for the claim kinds that name its tool', () => {
    const evidence = trustedEvidence([verification('passed')], [settledCreate, verifyInvocation]);
    expect(evidence.attested.map((w) => w.seq)).toEqual([2]);
    expect(backingOf(evidence, ['refund'], ['refund.create'])).toBe('verified');
    expect(backingOf(evidence, ['refund'])).toBe('none');
    expect(backingOf(evidence, ['git.remote_branch'], ['git.push'])).toBe('none');
  });
});
