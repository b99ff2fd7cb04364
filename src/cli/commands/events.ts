import type { StoredEvent } from '../../activities/store/index.js';
import { connectTemporal, describeRun, openCliStore } from '../connect.js';
import { EXIT } from '../errors.js';
import { brief, type Output } from '../output.js';
import { parsePositiveInt } from '../read-json.js';
import { isClosed, readEvents, sleep } from '../run-access.js';

export interface EventsOptions {
  readonly follow?: boolean;
  readonly after: string;
  readonly interval: string;
}

/**
 * `harness events <id>`: the run's events from the evidence store (`HARNESS_STORE_URL`), one per line
 * (JSON lines with `--json`). `--follow` polls for new events until the workflow is closed, prints
 * the last ones and exits 0.
 */
export async function eventsCommand(id: string, o: EventsOptions, out: Output): Promise<number> {
  const afterSeq = parsePositiveInt('--after', o.after, true);
  const interval = parsePositiveInt('--interval', o.interval);
  const t = await connectTemporal();
  const store = await openCliStore();
  try {
    const handle = t.client.workflow.getHandle(id);
    let exec = await describeRun(handle);
    let last = afterSeq;
    const print = (events: StoredEvent[]): void => {
      for (const e of events) {
        out.data(e);
        out.line(`${String(e.seq).padStart(4)}  ${e.occurredAt}  ${e.type.padEnd(24)}  ${brief(e.data)}`);
        last = e.seq;
      }
    };
    print(await readEvents(store, id, last));
    if (!o.follow) return EXIT.ok;
    while (!isClosed(exec.status)) {
      await sleep(interval);
      exec = await describeRun(handle);
      print(await readEvents(store, id, last));
    }
    print(await readEvents(store, id, last));
    out.progress(`run ${id} is closed (${exec.status})`);
    return EXIT.ok;
  } finally {
    await store.close();
    await t.close();
  }
}
