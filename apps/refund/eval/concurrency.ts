/**
 * Map `items` through `fn` with at most `limit` calls in flight; results keep the input order.
 * A rejection of `fn` rejects the whole map (after the calls already running settle).
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from(
    { length: Math.max(1, Math.min(Number.isFinite(limit) ? limit : 1, items.length)) },
    async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!, i);
      }
    },
  );
  await Promise.all(lanes);
  return results;
}
