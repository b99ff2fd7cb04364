import { sign } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { signAttestation } from '../../../../src/activities/attestation/chain-head-signer.js';
import { verifyAttestationJws } from '../../../../src/client/proof/verify-attestation-jws.js';
import {
  CHAIN_HEAD_TOKEN_TYPE,
  ChainHeadClaimsSchema,
  type AttestationRegistry,
  type ChainHeadClaims,
} from '../../../../src/contract/chain-head.js';
import { ERASURE_HEAD_TOKEN_TYPE } from '../../../../src/contract/erasure-record.js';
import { SEAL_LOG_CHECKPOINT_TYPE } from '../../../../src/contract/seal-log.js';
import { testAttestation } from '../../../support/attestation.js';

const b64 = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/**
 * The one verifier of what an attestation key signs (chain heads, seal log checkpoints, erasure heads):
 * the right token passes with its claims; every way a token can be wrong refuses it with its reason.
 */
describe('verifyAttestationJws', () => {
  const key = testAttestation('attest-1');
  const now = Math.floor(Date.now() / 1000);
  const claims: ChainHeadClaims = { run: 'run-1', seq: 7, head: `sha256:${'a'.repeat(64)}`, iat: now };
  const chainHead = { typ: CHAIN_HEAD_TOKEN_TYPE, claims: ChainHeadClaimsSchema };
  const token = signAttestation(key.signer, CHAIN_HEAD_TOKEN_TYPE, claims);
  /** A token with this header and these claims, signed with the registered key (a valid signature). */
  const signedAs = (header: object, body: object = claims): string => {
    const signed = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(body))}`;
    return `${signed}.${b64(sign(null, Buffer.from(signed, 'ascii'), key.signer.privateKey))}`;
  };

  it('passes a token of the expected typ signed by a registered key, with its claims and key', () => {
    const r = verifyAttestationJws(token, key.registry, chainHead);
    expect(r).toEqual({ ok: true, claims, key: key.registry.keys[0] });
    // The form signAttestation writes, rebuilt by hand: the same token passes.
    expect(
      verifyAttestationJws(
        signedAs({ alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1' }),
        key.registry,
        chainHead,
      ).ok,
    ).toBe(true);
  });

  it('refuses a token of another typ, signed by the same key, as malformed', () => {
    for (const typ of [SEAL_LOG_CHECKPOINT_TYPE, ERASURE_HEAD_TOKEN_TYPE, 'JWT']) {
      const other = signAttestation(key.signer, typ, claims);
      expect(verifyAttestationJws(other, key.registry, chainHead)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    }
    // And a chain head is not taken for another type either.
    expect(
      verifyAttestationJws(token, key.registry, { ...chainHead, typ: SEAL_LOG_CHECKPOINT_TYPE }),
    ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses another alg, an extra or missing header field, even with a valid Ed25519 signature', () => {
    for (const header of [
      { alg: 'HS256', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1' },
      { alg: 'none', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1' },
      { typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1' },
      { alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE },
      { alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 7 },
      { alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1', jku: 'https://attacker.example' },
    ])
      expect(verifyAttestationJws(signedAs(header), key.registry, chainHead), JSON.stringify(header)).toEqual(
        {
          ok: false,
          reason: 'malformed',
        },
      );
  });

  it('refuses a key not in the registry, or no registry, naming the kid', () => {
    const stranger = testAttestation('stranger-1');
    const foreign = signAttestation(stranger.signer, CHAIN_HEAD_TOKEN_TYPE, claims);
    expect(verifyAttestationJws(foreign, key.registry, chainHead)).toEqual({
      ok: false,
      reason: 'unknown_key',
      kid: 'stranger-1',
      claims,
    });
    expect(verifyAttestationJws(token, undefined, chainHead)).toMatchObject({
      ok: false,
      reason: 'unknown_key',
      kid: 'attest-1',
    });
  });

  it('refuses a key used outside its validity window; its ends are inside', () => {
    const entry = key.registry.keys[0]!;
    const window = (notBefore: number, notAfter?: number): AttestationRegistry => ({
      version: 1,
      keys: [
        {
          ...entry,
          notBefore: new Date(notBefore * 1000).toISOString(),
          ...(notAfter === undefined ? {} : { notAfter: new Date(notAfter * 1000).toISOString() }),
        },
      ],
    });
    expect(verifyAttestationJws(token, window(now + 1), chainHead)).toMatchObject({
      ok: false,
      reason: 'key_not_valid',
      kid: 'attest-1',
      claims,
    });
    expect(verifyAttestationJws(token, window(now - 100, now - 1), chainHead)).toMatchObject({
      ok: false,
      reason: 'key_not_valid',
    });
    expect(verifyAttestationJws(token, window(now, now), chainHead).ok).toBe(true);
  });

  it('refuses a tampered payload, a signature of another key, and a signature cut short', () => {
    const [h, , s] = token.split('.');
    const tampered = `${h}.${b64(JSON.stringify({ ...claims, seq: 8 }))}.${s}`;
    expect(verifyAttestationJws(tampered, key.registry, chainHead)).toMatchObject({
      ok: false,
      reason: 'signature_invalid',
      kid: 'attest-1',
      claims: { ...claims, seq: 8 },
    });
    // The registry names this key id with another public key: the signature does not verify with it.
    const stranger = testAttestation('attest-1');
    expect(verifyAttestationJws(token, stranger.registry, chainHead)).toMatchObject({
      ok: false,
      reason: 'signature_invalid',
    });
    for (const bad of [s!.slice(0, 20), '', b64(Buffer.alloc(64)), '!!not base64!!'])
      expect(
        verifyAttestationJws(`${token.split('.').slice(0, 2).join('.')}.${bad}`, key.registry, chainHead),
      ).toMatchObject({
        ok: false,
        reason: 'signature_invalid',
      });
    // A registry entry that is not an Ed25519 key refuses, never throws.
    const broken: AttestationRegistry = {
      version: 1,
      keys: [{ ...key.registry.keys[0]!, publicKey: 'xyz' }],
    };
    expect(verifyAttestationJws(token, broken, chainHead)).toMatchObject({
      ok: false,
      reason: 'signature_invalid',
    });
  });

  it('refuses malformed tokens and claims outside the schema or not bound to what the caller expects', () => {
    const [h, c, s] = token.split('.');
    for (const bad of [
      '',
      'abc',
      `${h}.${c}`,
      `${token}.extra`,
      `${b64('not json')}.${c}.${s}`,
      `${h}.${b64('not json')}.${s}`,
      `${h}.${b64('[1,2]')}.${s}`,
    ])
      expect(verifyAttestationJws(bad, key.registry, chainHead), bad).toEqual({
        ok: false,
        reason: 'malformed',
      });
    const header = { alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1' };
    for (const body of [
      { ...claims, iat: undefined },
      { ...claims, seq: -1 },
      { ...claims, extra: true },
      { ...claims, head: 'not a hash' },
    ])
      expect(verifyAttestationJws(signedAs(header, body), key.registry, chainHead)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    const binds = (c: ChainHeadClaims) => c.run === 'run-2';
    expect(verifyAttestationJws(token, key.registry, { ...chainHead, binds })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    // Bound before the key is looked up: a head of another run is malformed even with no registry.
    expect(verifyAttestationJws(token, undefined, { ...chainHead, binds })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(
      verifyAttestationJws(token, key.registry, { ...chainHead, binds: (c) => c.run === 'run-1' }).ok,
    ).toBe(true);
  });

  it('refuses a signature segment that is not canonical base64url: one token, one spelling', () => {
    const [h, c, s] = token.split('.') as [string, string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 64 bytes are 86 characters: the last one carries 2 bits and 4 bits that must be zero.
    const last = alphabet.indexOf(s.at(-1)!);
    const spellings = [
      `${s}=`,
      `${s}==`,
      `${s.slice(0, -1)}${alphabet[last ^ 1]}`,
      `${s.slice(0, 10)}!!${s.slice(10)}`,
      `${s.slice(0, 10)} \n${s.slice(10)}`,
      `${s.replace(/-/g, '+').replace(/_/g, '/')}${/[-_]/.test(s) ? '' : '='}`,
    ];
    for (const spelling of spellings) {
      expect(spelling).not.toBe(s);
      // Each decodes to the very signature bytes...
      expect(Buffer.from(spelling, 'base64url').equals(Buffer.from(s, 'base64url')), spelling).toBe(true);
      // ...and is refused: a token another spelling of a verified one would not be told apart by text.
      expect(verifyAttestationJws(`${h}.${c}.${spelling}`, key.registry, chainHead), spelling).toMatchObject({
        ok: false,
        reason: 'signature_invalid',
      });
    }
    // Header and claims segments the key signed in a padded or non-url spelling are malformed.
    const header = b64(JSON.stringify({ alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1' }));
    const resign = (hs: string, cs: string): string =>
      `${hs}.${cs}.${b64(sign(null, Buffer.from(`${hs}.${cs}`, 'ascii'), key.signer.privateKey))}`;
    expect(verifyAttestationJws(resign(header, c), key.registry, chainHead).ok).toBe(true);
    for (const [hs, cs] of [
      [`${header}=`, c],
      [header, `${c}=`],
      [header, Buffer.from(JSON.stringify(claims)).toString('base64')],
      [`${header.slice(0, 4)} ${header.slice(4)}`, c],
    ] as const)
      expect(verifyAttestationJws(resign(hs, cs), key.registry, chainHead), `${hs}.${cs}`).toEqual({
        ok: false,
        reason: 'malformed',
      });
  });

  it('refuses a token longer than any attestation token before decoding or parsing it', () => {
    const [h, , s] = token.split('.') as [string, string, string];
    // Deeply nested JSON (a megabyte of brackets) and a long claim: never decoded, never parsed.
    const deep = b64(`${'['.repeat(500_000)}${']'.repeat(500_000)}`);
    const long = b64(JSON.stringify({ ...claims, run: 'r'.repeat(1_000_000) }));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      for (const huge of [
        `${h}.${deep}.${s}`,
        `${h}.${long}.${s}`,
        `${h}.${claims.head}.${s}${'A'.repeat(8192)}`,
      ]) {
        parse.mockClear();
        expect(verifyAttestationJws(huge, key.registry, chainHead)).toEqual({
          ok: false,
          reason: 'malformed',
        });
        expect(parse).not.toHaveBeenCalled();
      }
      // The longest token a schema allows still verifies: a kid of 200 and a run of 300 characters.
      const bound = testAttestation('k'.repeat(200));
      const widest = signAttestation(bound.signer, CHAIN_HEAD_TOKEN_TYPE, {
        ...claims,
        run: '\u{1F600}'.repeat(150),
        at: 'write.before',
        call: Number.MAX_SAFE_INTEGER,
        seq: Number.MAX_SAFE_INTEGER,
        iat: now,
      });
      expect(verifyAttestationJws(widest, bound.registry, chainHead).ok).toBe(true);
    } finally {
      parse.mockRestore();
    }
  });

  it("refuses a kid with control or format characters (it is echoed in the verifier's lines unverified)", () => {
    for (const kid of [
      'attest-1\n',
      'x\nPASS  heads        heads.ok',
      '\u001b[2K\rPASS',
      'attest\u202e1-tset',
      'a\u0000b',
    ])
      expect(
        verifyAttestationJws(
          signedAs({ alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE, kid }),
          key.registry,
          chainHead,
        ),
        JSON.stringify(kid),
      ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('keeps refusing what an attacker tries against the header, the kid lookup and the key window', () => {
    const header = { alg: 'EdDSA', typ: CHAIN_HEAD_TOKEN_TYPE, kid: 'attest-1' };
    // typ and alg compared exactly: no case folding, no suffix or prefix.
    for (const h of [
      { ...header, typ: CHAIN_HEAD_TOKEN_TYPE.toUpperCase() },
      { ...header, typ: `${CHAIN_HEAD_TOKEN_TYPE}+x` },
      { ...header, typ: `x-${CHAIN_HEAD_TOKEN_TYPE}` },
      { ...header, typ: ` ${CHAIN_HEAD_TOKEN_TYPE}` },
      { ...header, alg: 'eddsa' },
      { ...header, alg: 'Ed25519' },
      { ...header, crit: ['b64'] },
      { ...header, b64: false },
    ])
      expect(verifyAttestationJws(signedAs(h), key.registry, chainHead), JSON.stringify(h)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    // __proto__ and constructor as own JSON keys are extra fields, not prototypes.
    const raw = (hj: string, cj: string): string => {
      const signed = `${b64(hj)}.${b64(cj)}`;
      return `${signed}.${b64(sign(null, Buffer.from(signed, 'ascii'), key.signer.privateKey))}`;
    };
    const hj = JSON.stringify(header);
    const cj = JSON.stringify(claims);
    for (const [h, c] of [
      [`${hj.slice(0, -1)},"__proto__":{"kid":"attest-1"}}`, cj],
      [hj, `${cj.slice(0, -1)},"__proto__":{"at":"seal"}}`],
      [hj, `${cj.slice(0, -1)},"constructor":{"at":"seal"}}`],
    ] as const)
      expect(verifyAttestationJws(raw(h, c), key.registry, chainHead), `${h} ${c}`).toEqual({
        ok: false,
        reason: 'malformed',
      });
    // A kid naming an Object.prototype property finds no key.
    for (const kid of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(verifyAttestationJws(signedAs({ ...header, kid }), key.registry, chainHead)).toMatchObject({
        ok: false,
        reason: 'unknown_key',
        kid,
      });
    // iat missing, fractional, negative, beyond a safe integer: malformed.
    for (const iat of [undefined, 1.5, -1, 2 ** 53, 1e300])
      expect(verifyAttestationJws(signedAs(header, { ...claims, iat }), key.registry, chainHead)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    // A registry entry whose window does not parse (not through AttestationRegistrySchema) is no window.
    const entry = key.registry.keys[0]!;
    for (const broken of [
      { ...entry, notBefore: 'yesterday' },
      { ...entry, notAfter: 'never' },
      { keyId: entry.keyId, publicKey: entry.publicKey } as unknown as typeof entry,
    ])
      expect(verifyAttestationJws(token, { version: 1, keys: [broken] }, chainHead)).toMatchObject({
        ok: false,
        reason: 'key_not_valid',
      });
  });
});
