/**
 * Which phrases occur in a fixed set of texts, in time linear in the texts and the phrases together.
 * Answers exactly `texts.some((t) => t.includes(phrase))` for phrases without `\u0000`. The first
 * {@link NAIVE_QUERIES} distinct phrases are looked up directly (what most checks ever need); after
 * that a suffix automaton over the texts (built once, linear in their length) answers each phrase in
 * time linear in its length. Every answer is remembered. Pure; never throws.
 */
export class SubstringIndex {
  private readonly answers = new Map<string, boolean>();
  private automaton: SuffixAutomaton | undefined;
  private naive = 0;

  constructor(private readonly texts: readonly string[]) {}

  has(phrase: string): boolean {
    const known = this.answers.get(phrase);
    if (known !== undefined) return known;
    let found: boolean;
    if (this.naive < NAIVE_QUERIES) {
      this.naive += 1;
      found = this.texts.some((t) => t.includes(phrase));
    } else {
      this.automaton ??= new SuffixAutomaton(this.texts.join('\u0000'));
      found = phrase === '' ? this.texts.length > 0 : this.automaton.contains(phrase);
    }
    this.answers.set(phrase, found);
    return found;
  }
}

/** Distinct phrases looked up by scanning the texts before the automaton is built. */
export const NAIVE_QUERIES = 8;

/** The suffix automaton of one string (UTF-16 code units): does a string occur in it? */
class SuffixAutomaton {
  /** Transitions: `state * 65536 + code unit` to the next state. */
  private readonly next = new Map<number, number>();
  /** The code units each state has a transition on (to copy them into a clone). */
  private readonly out: number[][] = [[]];
  private readonly link: number[] = [-1];
  private readonly len: number[] = [0];
  private last = 0;

  constructor(text: string) {
    for (let i = 0; i < text.length; i += 1) this.extend(text.charCodeAt(i));
  }

  contains(s: string): boolean {
    let state = 0;
    for (let i = 0; i < s.length; i += 1) {
      const to = this.next.get(state * 65536 + s.charCodeAt(i));
      if (to === undefined) return false;
      state = to;
    }
    return true;
  }

  private state(length: number, link: number): number {
    this.len.push(length);
    this.link.push(link);
    this.out.push([]);
    return this.len.length - 1;
  }

  private set(state: number, c: number, to: number): void {
    const key = state * 65536 + c;
    if (!this.next.has(key)) this.out[state]!.push(c);
    this.next.set(key, to);
  }

  private extend(c: number): void {
    const cur = this.state(this.len[this.last]! + 1, 0);
    let p = this.last;
    while (p !== -1 && !this.next.has(p * 65536 + c)) {
      this.set(p, c, cur);
      p = this.link[p]!;
    }
    if (p !== -1) {
      const q = this.next.get(p * 65536 + c)!;
      if (this.len[p]! + 1 === this.len[q]) this.link[cur] = q;
      else {
        const clone = this.state(this.len[p]! + 1, this.link[q]!);
        for (const k of this.out[q]!) this.set(clone, k, this.next.get(q * 65536 + k)!);
        while (p !== -1 && this.next.get(p * 65536 + c) === q) {
          this.next.set(p * 65536 + c, clone);
          p = this.link[p]!;
        }
        this.link[q] = clone;
        this.link[cur] = clone;
      }
    }
    this.last = cur;
  }
}
