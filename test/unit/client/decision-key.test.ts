import { describe, expect, it } from 'vitest';
import {
  decisionKeyFrom,
  generateDecisionKey,
  publicKeyOf,
} from '../../../src/client/decisions/decision-key.js';
import { signDecision } from '../../../src/client/decisions/sign-decision.js';
import { DEFAULT_AUTHORIZATION } from '../../../src/workflows/authz/authorization-rules.js';
import { DecisionAuthority } from '../../../src/workflows/authz/decision-authority.js';
import { PrincipalDirectory } from '../../../src/workflows/authz/principal-directory.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const action = {
  actionId: 'a1.demo.write.0123456789ab',
  tool: 'demo.write',
  version: 'v1',
  argsDigest: `sha256:${'a'.repeat(64)}`,
};

describe('generateDecisionKey', () => {
  it('returns a usable DecisionKey beside the key file and the registry entry', () => {
    const alice = generateDecisionKey({ principal: 'alice@shop.example', keyId: 'alice-1' });
    expect(alice.key.principal).toBe('alice@shop.example');
    expect(alice.key.keyId).toBe('alice-1');
    expect(alice.key.privateKey.asymmetricKeyType).toBe('ed25519');
    // the same key as its file, and the registry entry trusts its public half
    const fromFile = decisionKeyFrom(alice.keyFile);
    expect(publicKeyOf(fromFile.privateKey)).toBe(publicKeyOf(alice.key.privateKey));
    expect(alice.principal).toMatchObject({
      id: 'alice@shop.example',
      kind: 'approver',
      roles: ['approver'],
    });
    expect(alice.principal.keys).toEqual([
      { id: 'alice-1', alg: 'Ed25519', publicKey: publicKeyOf(alice.key.privateKey) },
    ]);
    // the key file stays plain JSON data (what `harness keys create` writes)
    expect(JSON.parse(JSON.stringify(alice.keyFile))).toEqual(alice.keyFile);
  });

  it('signs a decision a run accepts from a registry holding only its entry', () => {
    const alice = generateDecisionKey({ principal: 'alice@shop.example', keyId: 'alice-1' });
    const payload = signDecision(
      alice.key,
      {
        workflowId: 'wf-1',
        firstExecutionRunId: 'first-1',
        actionId: action.actionId,
        argsDigest: action.argsDigest,
      },
      'approve',
      { actionId: action.actionId, actor: 'alice@shop.example' },
      { now: new Date(NOW) },
    );
    const authority = new DecisionAuthority({
      workflowId: 'wf-1',
      firstExecutionRunId: 'first-1',
      requester: undefined,
      rules: DEFAULT_AUTHORIZATION,
    });
    authority.useDirectory(new PrincipalDirectory('sha256:x', { version: 1, principals: [alice.principal] }));
    expect(authority.check('approve', payload, action, NOW)).toMatchObject({ ok: true });
    // another person's key is not Alice's
    const mallory = generateDecisionKey({ principal: 'alice@shop.example', keyId: 'alice-1' });
    const forged = signDecision(
      mallory.key,
      {
        workflowId: 'wf-1',
        firstExecutionRunId: 'first-1',
        actionId: action.actionId,
        argsDigest: action.argsDigest,
      },
      'approve',
      { actionId: action.actionId, actor: 'alice@shop.example' },
      { now: new Date(NOW) },
    );
    expect(authority.check('approve', forged, action, NOW)).toMatchObject({ ok: false });
  });
});
