import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  treeHead,
  verifyConsistency,
  verifyInclusion,
} from '../../../src/contract/merkle-tree.js';

const sha256 = (d: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(d).digest());
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The leaves of Certificate Transparency's reference tests (RFC 6962 / 9162 implementations). */
const LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map((h) => leafHash(sha256, Buffer.from(h, 'hex')));

/** Their tree heads at sizes 1 to 8. */
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

describe('Merkle tree (RFC 9162 structure)', () => {
  it("computes the reference tree heads of sizes 1 to 8, and the empty tree's", () => {
    ROOTS.forEach((root, i) => expect(hex(treeHead(sha256, LEAVES.slice(0, i + 1)))).toBe(root));
    expect(hex(treeHead(sha256, []))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('proves and verifies every leaf of every size up to 40; a changed leaf, index, root or path fails (the size is bound by the signed checkpoint, with its root)', () => {
    const leaves = Array.from({ length: 40 }, (_, i) => leafHash(sha256, Buffer.from(`seal ${i}`)));
    for (let n = 1; n <= leaves.length; n++) {
      const tree = leaves.slice(0, n);
      const root = treeHead(sha256, tree);
      for (let i = 0; i < n; i++) {
        const proof = inclusionProof(sha256, i, tree);
        expect(verifyInclusion(sha256, i, n, tree[i]!, proof, root)).toBe(true);
        expect(verifyInclusion(sha256, i, n, leaves[(i + 1) % 40]!, proof, root)).toBe(false);
        if (n > 1) expect(verifyInclusion(sha256, (i + 1) % n, n, tree[i]!, proof, root)).toBe(false);
        expect(verifyInclusion(sha256, i, n, tree[i]!, proof, leaves[0]!)).toBe(
          n === 1 && i === 0 ? true : false,
        );
        if (proof.length > 0)
          expect(verifyInclusion(sha256, i, n, tree[i]!, proof.slice(1), root)).toBe(false);
      }
    }
  });

  it('proves and verifies consistency between every two sizes up to 40; another old root or a cut proof fails', () => {
    const leaves = Array.from({ length: 40 }, (_, i) => leafHash(sha256, Buffer.from(`seal ${i}`)));
    for (let n = 1; n <= leaves.length; n++) {
      const root = treeHead(sha256, leaves.slice(0, n));
      for (let m = 1; m <= n; m++) {
        const old = treeHead(sha256, leaves.slice(0, m));
        const proof = consistencyProof(sha256, m, leaves.slice(0, n));
        expect(verifyConsistency(sha256, m, n, old, root, proof)).toBe(true);
        if (m < n) {
          // A forked history: the first m leaves with one changed.
          const forked = treeHead(sha256, [
            ...leaves.slice(0, m - 1),
            leafHash(sha256, Buffer.from('forged')),
          ]);
          expect(verifyConsistency(sha256, m, n, forked, root, proof)).toBe(false);
          expect(verifyConsistency(sha256, m, n, old, root, proof.slice(0, -1))).toBe(false);
        }
      }
    }
  });

  it('refuses proofs out of bounds', () => {
    expect(() => inclusionProof(sha256, 3, LEAVES.slice(0, 3))).toThrow(RangeError);
    expect(() => consistencyProof(sha256, 0, LEAVES)).toThrow(RangeError);
    expect(verifyInclusion(sha256, -1, 3, LEAVES[0]!, [], LEAVES[0]!)).toBe(false);
    expect(verifyConsistency(sha256, 4, 3, LEAVES[0]!, LEAVES[0]!, [])).toBe(false);
  });
});
