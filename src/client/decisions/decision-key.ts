import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { HarnessError } from '../../contract/errors.js';
import {
  KeyIdSchema,
  PrincipalIdSchema,
  type Principal,
  type PrincipalKind,
} from '../../contract/principals.js';

/**
 * A principal's signing key (docs/authorization.md). The key file is JSON with the principal id, the
 * key id and the PKCS#8 PEM private key; keep it private (mode 0600). The registry holds only the
 * public half.
 */
export const DecisionKeyFileSchema = z
  .object({
    principal: PrincipalIdSchema,
    keyId: KeyIdSchema,
    privateKeyPem: z.string().min(1).max(10_000),
  })
  .strict();
export type DecisionKeyFile = z.infer<typeof DecisionKeyFileSchema>;

/** A loaded signing key. */
export interface DecisionKey {
  readonly principal: string;
  readonly keyId: string;
  readonly privateKey: KeyObject;
}

/** The raw Ed25519 public key of a private or public key object, base64url (the registry's form). */
export function publicKeyOf(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string')
    throw new HarnessError('decision.key_invalid', 'not an Ed25519 key');
  return jwk.x;
}

/**
 * What {@link generateDecisionKey} makes: the signing key itself, the key file that holds it, and the
 * principal registry entry that trusts its public half.
 */
export interface GeneratedDecisionKey {
  /** The loaded signing key: what `signDecision`, `signedPayload` and a start's `signer` take. */
  readonly key: DecisionKey;
  /** The key file to keep private (`loadDecisionKey`/`decisionKeyFrom` read it back). */
  readonly keyFile: DecisionKeyFile;
  /** The registry entry to add to the workers' principal registry (docs/authorization.md). */
  readonly principal: Principal;
}

/**
 * A new Ed25519 key pair for a principal: `key` signs at once (`signedPayload(alice.key, ...)`,
 * `signer: { key: bob.key }`), `keyFile` is what to store, `principal` what the registry trusts.
 * `kind` defaults to `approver`, `roles` to `['approver']`.
 * @throws ZodError for a malformed principal or key id.
 */
export function generateDecisionKey(o: {
  principal: string;
  keyId: string;
  kind?: PrincipalKind;
  roles?: readonly string[];
}): GeneratedDecisionKey {
  const principal = PrincipalIdSchema.parse(o.principal);
  const keyId = KeyIdSchema.parse(o.keyId);
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    key: { principal, keyId, privateKey },
    keyFile: {
      principal,
      keyId,
      privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    },
    principal: {
      id: principal,
      kind: o.kind ?? 'approver',
      roles: [...(o.roles ?? ['approver'])],
      keys: [{ id: keyId, alg: 'Ed25519', publicKey: publicKeyOf(privateKey) }],
    },
  };
}

/**
 * A key from its file contents.
 * @throws HarnessError `decision.key_invalid` for a file that is not a key file or not an Ed25519 key.
 */
export function decisionKeyFrom(value: unknown, source = 'key'): DecisionKey {
  const parsed = DecisionKeyFileSchema.safeParse(value);
  if (!parsed.success)
    throw new HarnessError(
      'decision.key_invalid',
      `${source}: not a decision key file ({ principal, keyId, privateKeyPem })`,
    );
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(parsed.data.privateKeyPem);
  } catch (err) {
    throw new HarnessError(
      'decision.key_invalid',
      `${source}: unreadable private key (${(err as Error).message})`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new HarnessError(
      'decision.key_invalid',
      `${source}: the key is ${privateKey.asymmetricKeyType}, not Ed25519`,
    );
  return { principal: parsed.data.principal, keyId: parsed.data.keyId, privateKey };
}

/**
 * Read a key file.
 * @throws HarnessError `decision.key_unreadable` when it cannot be read, `decision.key_invalid` as above.
 */
export function loadDecisionKey(path: string): DecisionKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new HarnessError(
      'decision.key_unreadable',
      `cannot read the key file ${path}: ${(err as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HarnessError('decision.key_invalid', `${path}: not JSON`);
  }
  return decisionKeyFrom(value, path);
}
