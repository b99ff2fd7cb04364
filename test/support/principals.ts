import { createPrivateKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrincipalRegistry } from '../../src/contract/principals.js';
import { publicKeyOf, type DecisionKey } from '../../src/client/decisions/decision-key.js';
import type { StartSigner } from '../../src/client/decisions/sign-start.js';

/** An Ed25519 private key from a fixed 32-byte seed (PKCS#8 DER): test keys are the same in every process. */
function keyFromSeed(principal: string, keyId: string, seedByte: number): DecisionKey {
  const der = Buffer.concat([
    Buffer.from('302e020100300506032b657004220420', 'hex'),
    Buffer.alloc(32, seedByte),
  ]);
  return { principal, keyId, privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }) };
}

/** The tests' principals and their keys. */
export const TEST_KEYS = {
  /** Approves refunds, reconciles, cancels. */
  ops: keyFromSeed('operator@example.com', 'ops-1', 1),
  /** A second refund approver (four-eyes). */
  lead: keyFromSeed('lead@example.com', 'lead-1', 2),
  /** The customer of the test runs (`userId: 'C1001'`). */
  customer: keyFromSeed('C1001', 'c1001-1', 3),
  /** Registered, but with no role that decides anything. */
  viewer: keyFromSeed('viewer@example.com', 'viewer-1', 4),
  /** Not in the registry. */
  mallory: keyFromSeed('mallory@example.com', 'mallory-1', 5),
  /** The run service: decides on behalf of the people it authenticated (a delegate). */
  service: keyFromSeed('run-service', 'run-service-1', 6),
} as const;

const entry = (k: DecisionKey) => ({
  id: k.keyId,
  alg: 'Ed25519' as const,
  publicKey: publicKeyOf(k.privateKey),
});

/** The registry every test worker trusts (in-process fixtures and worker processes alike). */
export const TEST_PRINCIPALS: PrincipalRegistry = {
  version: 1,
  principals: [
    {
      id: TEST_KEYS.ops.principal,
      kind: 'operator',
      roles: ['approver', 'refund_approver', 'operator'],
      keys: [entry(TEST_KEYS.ops)],
    },
    {
      id: TEST_KEYS.lead.principal,
      kind: 'approver',
      roles: ['approver', 'refund_approver'],
      keys: [entry(TEST_KEYS.lead)],
    },
    { id: TEST_KEYS.customer.principal, kind: 'customer', roles: [], keys: [entry(TEST_KEYS.customer)] },
    { id: TEST_KEYS.viewer.principal, kind: 'operator', roles: ['viewer'], keys: [entry(TEST_KEYS.viewer)] },
    {
      id: TEST_KEYS.service.principal,
      kind: 'service',
      roles: [],
      keys: [entry(TEST_KEYS.service)],
      delegation: {
        roles: ['approver', 'refund_approver', 'operator'],
        kinds: ['operator', 'approver', 'customer'],
      },
    },
  ],
};

/** Write `key` as a key file (what `harness keys create` writes) into `dir`; returns its path. */
export function writeKeyFile(key: DecisionKey, dir: string): string {
  const path = join(dir, `${key.keyId}.json`);
  const keyFile = {
    principal: key.principal,
    keyId: key.keyId,
    privateKeyPem: key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
  writeFileSync(path, JSON.stringify(keyFile), { mode: 0o600 });
  return path;
}

/** Registered people of {@link TEST_KEYS} (a start they sign is theirs): not the delegate, not mallory. */
const PEOPLE: readonly DecisionKey[] = [TEST_KEYS.ops, TEST_KEYS.lead, TEST_KEYS.customer, TEST_KEYS.viewer];

/**
 * How a test signs a start (docs/authorization.md, "Who a run is for"): a `userId` that is one of the
 * test people is signed with that person's key; another `userId` with a `tenantId` is signed by the test
 * delegate ({@link TEST_KEYS.service}) on behalf of a customer of that id in that tenant. Without a
 * `userId`, a task whose `customerId` is a test person (the refund tests' C1001) is signed with their
 * key: the run is theirs, as a customer filing their own request is. Anything else is not signed (an
 * anonymous run: no requester, no tenant for decisions; the refund graph refuses it).
 */
export function testStartSigner(input: {
  readonly userId?: string | undefined;
  readonly tenantId?: string | undefined;
  readonly task?: Readonly<Record<string, unknown>> | undefined;
}): StartSigner | undefined {
  const { userId, tenantId } = input;
  const customer = input.task?.customerId;
  const who = userId ?? (typeof customer === 'string' ? customer : undefined);
  const own = PEOPLE.find((k) => k.principal === who);
  if (own !== undefined) return { key: own };
  if (userId === undefined || tenantId === undefined) return undefined;
  return {
    key: TEST_KEYS.service,
    onBehalfOf: { sub: userId, kind: 'customer', roles: [], ten: tenantId },
  };
}
