/**
 * Run `fn(0..n-1)` with at most `parallel` calls in flight; results in index order. `onDone` is told
 * how many have finished after each one (progress output). The first rejection rejects the whole
 * pool (calls already in flight still finish); callers that must not stop pass a `fn` that never
 * rejects (bench/lib/http-json.ts `timedPost`).
 */
export async function inPool<T>(
  n: number,
  parallel: number,
  fn: (i: number) => Promise<T>,
  onDone?: (done: number) => void,
): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
        onDone?.(++done);
      }
    }),
  );
  return out;
}

/** An `onDone` for {@link inPool} that calls `say` at every tenth of `n`. */
export function everyTenth(n: number, say: (done: number) => void): (done: number) => void {
  const step = Math.max(1, Math.ceil(n / 10));
  return (done) => {
    if (done % step === 0 || done === n) say(done);
  };
}
