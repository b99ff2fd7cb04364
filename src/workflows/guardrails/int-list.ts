/**
 * A growable list of integers in an `Int32Array`, for positions in a text: per-character or per-match
 * tables of long texts. A plain array grown by `push` past about 16,000 elements is reallocated in
 * the heap's large-object space at every doubling, which costs far more than the copy itself; a
 * typed array's buffer is one flat allocation. Values are 32-bit integers (string offsets are).
 */
export class IntList {
  private items: Int32Array;
  private size = 0;

  constructor(capacity = 16) {
    this.items = new Int32Array(Math.max(capacity, 1));
  }

  get length(): number {
    return this.size;
  }

  push(value: number): void {
    if (this.size === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.size] = value;
    this.size += 1;
  }

  /** The value at `index`, or undefined past the end. */
  at(index: number): number | undefined {
    return index >= 0 && index < this.size ? this.items[index] : undefined;
  }

  /** The first index whose value is at least `value`, for a list in ascending order (`length` when none is). */
  firstAtLeast(value: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid] ?? 0) < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
