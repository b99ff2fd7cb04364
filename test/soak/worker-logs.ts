import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Event writes the evidence store refused as a conflict (`store.conflict`: "event <run>#<seq> ...
 * already exists with different content"), by run, from the worker processes' logs in `dir`.
 *
 * Such a refusal is how a wedged run shows: the last flush of a run is a local activity inside its
 * workflow task; when a worker dies after that flush committed and before the task completed, the
 * retried task flushes the run's last events again with its own workflow clock, and the store keeps
 * refusing them (docs/durability.md, "Soak").
 */
export function refusedEventWrites(dir: string): Record<string, number> {
  const counts: Record<string, number> = {};
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return counts;
  }
  const refusal = /error: StoreError: event (\S+)#\d+ \(\S+\) already exists with different content/g;
  for (const file of files) {
    // eslint-disable-next-line no-control-regex -- the worker runtime's colour codes
    const text = readFileSync(join(dir, file), 'utf8').replace(/\u001b\[[0-9;]*m/g, '');
    for (const m of text.matchAll(refusal)) counts[m[1]!] = (counts[m[1]!] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
