/**
 * Merkle hash trees in the structure of RFC 9162 §2.1 (Certificate Transparency 2.0; the same as
 * RFC 6962): the tree head of n leaves, an inclusion proof of one leaf and a consistency proof
 * between two sizes of the same append-only list, and their verification. The seal log (docs/evidence-chain.md,
 * "The seal log") is built on it. Pure: the SHA-256 function is the caller's (no platform module),
 * hashes are bytes; every function checks its bounds and throws `RangeError` outside them.
 */

/** SHA-256 over bytes. */
export type Sha256 = (data: Uint8Array) => Uint8Array;

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** `HASH(0x00 || data)`: the hash of a leaf. */
export function leafHash(sha256: Sha256, data: Uint8Array): Uint8Array {
  return sha256(concat(Uint8Array.of(0), data));
}

/** `HASH(0x01 || left || right)`: the hash of an inner node. */
export function nodeHash(sha256: Sha256, left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(concat(Uint8Array.of(1), left, right));
}

/** The largest power of two smaller than n (n >= 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The tree head (MTH) of the leaves whose hashes are `leaves`; of no leaf, `HASH()` (the empty string's).
 */
export function treeHead(sha256: Sha256, leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256(new Uint8Array(0));
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return nodeHash(sha256, treeHead(sha256, leaves.slice(0, k)), treeHead(sha256, leaves.slice(k)));
}

/** The inclusion proof (audit path, RFC 9162 §2.1.3.1) of leaf `index` in the tree of `leaves`. */
export function inclusionProof(sha256: Sha256, index: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length)
    throw new RangeError(`leaf ${index} is not in a tree of ${leaves.length}`);
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  return index < k
    ? [...inclusionProof(sha256, index, leaves.slice(0, k)), treeHead(sha256, leaves.slice(k))]
    : [...inclusionProof(sha256, index - k, leaves.slice(k)), treeHead(sha256, leaves.slice(0, k))];
}

/**
 * Whether `proof` proves that the leaf of hash `leaf` is leaf `index` of the tree of `size` leaves whose
 * head is `root` (RFC 9162 §2.1.3.2). Never throws.
 */
export function verifyInclusion(
  sha256: Sha256,
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(sha256, p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(sha256, r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/**
 * The consistency proof (RFC 9162 §2.1.4.1) that the tree of the first `m` leaves is a prefix of the
 * tree of all `leaves` (0 < m <= leaves.length).
 */
export function consistencyProof(sha256: Sha256, m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  if (!Number.isInteger(m) || m < 1 || m > leaves.length)
    throw new RangeError(`no consistency proof from ${m} to ${leaves.length} leaves`);
  return subproof(sha256, m, leaves, true);
}

function subproof(sha256: Sha256, m: number, leaves: readonly Uint8Array[], whole: boolean): Uint8Array[] {
  const n = leaves.length;
  if (m === n) return whole ? [] : [treeHead(sha256, leaves)];
  const k = split(n);
  return m <= k
    ? [...subproof(sha256, m, leaves.slice(0, k), whole), treeHead(sha256, leaves.slice(k))]
    : [...subproof(sha256, m - k, leaves.slice(k), false), treeHead(sha256, leaves.slice(0, k))];
}

/**
 * Whether `proof` proves that the tree of `first` leaves with head `firstRoot` is a prefix of the tree
 * of `second` leaves with head `secondRoot` (RFC 9162 §2.1.4.2). Never throws.
 */
export function verifyConsistency(
  sha256: Sha256,
  first: number,
  second: number,
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!Number.isInteger(first) || !Number.isInteger(second) || first < 1 || first > second) return false;
  if (first === second) return proof.length === 0 && equal(firstRoot, secondRoot);
  if (proof.length === 0) return false;
  const path = [...proof];
  // A first tree that is a whole subtree is not in the proof: it starts the path.
  if (isPowerOfTwo(first)) path.unshift(firstRoot);
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(sha256, c, fr);
      sr = nodeHash(sha256, c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sha256, sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, firstRoot) && equal(sr, secondRoot);
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
