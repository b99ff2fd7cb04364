import type { Span } from './finding.js';

/**
 * The characters of one string that earlier findings or edits already hold, for "the first rule
 * wins" overlap checks in linear time: {@link TakenSpans.overlaps} and {@link TakenSpans.take} cost
 * O(span length), so checking and taking the (mutually non-overlapping) matches of R patterns costs
 * O(R × text length), where comparing each span with every earlier one costs O(matches²).
 *
 * Spans are non-empty (every detector pattern matches at least one character) and lie inside
 * `[0, length)`; characters outside are never taken. Never throws.
 */
export class TakenSpans {
  /** One byte per character, allocated when the first span is taken (most strings have none). */
  private taken: Uint8Array | undefined;

  constructor(private readonly length: number) {}

  /** True when `span` shares a character with a span taken before. */
  overlaps(span: Span): boolean {
    const taken = this.taken;
    if (taken === undefined) return false;
    for (let i = span.start; i < span.end; i += 1) if (taken[i] === 1) return true;
    return false;
  }

  take(span: Span): void {
    this.taken ??= new Uint8Array(this.length);
    this.taken.fill(1, span.start, span.end);
  }
}
