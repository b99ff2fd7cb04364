/**
 * Child process for the multi-process SQLite test: opens the store at argv[2] (racing the other
 * children on migrations), then interleaves writes with them: its own events and intents, and
 * shared records every child writes identically. Children wait for each other before writing,
 * and again halfway, so their commits interleave even on a starved machine. Prints one JSON line and exits 0 on success.
 */
import { openEvidenceStore } from '../../../../src/activities/store/index.js';

const [url, name, countText] = process.argv.slice(2);
if (url === undefined || name === undefined || countText === undefined)
  throw new Error('usage: sqlite-writer <url> <name> <count>');
const count = Number(countText);
const base = name === 'a' ? 0 : 100_000;

const store = await openEvidenceStore(url);
// Barrier through the store: start writing only when every child has opened it.
await store.appendMessageGroup('barrier', name === 'a' ? 1 : 2, [name]);
const deadline = Date.now() + 30_000;
while ((await store.listMessageGroups('barrier')).length < 2) {
  if (Date.now() > deadline) throw new Error('the other writer never opened the store');
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const shared = {
  runId: 'shared-run',
  seq: 0,
  attempt: 1,
  tool: 'refund.create',
  version: 'v1',
  effect: 'write' as const,
  argsDigest: 'sha256:0000',
  args: { orderId: 'o-1' },
  idempotencyKey: 'shared-run:0',
  workerIdentity: 'any',
  recordedAt: new Date().toISOString(),
};
const other = name === 'a' ? 'b' : 'a';
/** Waits until the other child has committed at least `n` of its events. */
async function otherHasWritten(n: number): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const events = await store.listEvents('shared-run', { limit: 5000 });
    if (events.filter((e) => (e.data as { writer?: string }).writer === other).length >= n) return;
    if (Date.now() > until) throw new Error(`the other writer never reached ${n} events`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
for (let i = 0; i < count; i++) {
  // Halfway, wait for the other child's first half: on a starved machine one process could otherwise
  // run alone to the end, and the test would not prove the two interleave.
  if (i === Math.floor(count / 2)) await otherHasWritten(Math.floor(count / 2));
  const seq = base + i;
  await store.appendEvent({
    runId: 'shared-run',
    seq,
    eventId: `ev-${name}-${i}`,
    type: 'step.completed',
    occurredAt: '2026-01-01T00:00:00.000Z',
    data: { writer: name, i },
    envelope: { writer: name, i },
  });
  await store.recordIntent({ ...shared, seq: seq + 1, idempotencyKey: `k-${seq + 1}`, workerIdentity: name });
  await store.recordIntent(shared);
  await store.appendMessageGroup('shared-run', 0, [{ role: 'user', content: 'same in every process' }]);
  // Like a real worker, pause between writes: SQLite's lock is not fair, and a writer committing in a
  // tight loop can keep the other waiting until it is done.
  await new Promise((resolve) => setTimeout(resolve, 1));
}
await store.close();
console.log(JSON.stringify({ name, wrote: count }));
