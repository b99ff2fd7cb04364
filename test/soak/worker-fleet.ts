import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startWorkerProcess,
  type WorkerProcess,
  type WorkerProcessOptions,
} from '../support/worker-process.js';

/** What a fleet did, in counts. */
export interface FleetCounts {
  /** Worker processes started successfully (the first start of every slot included). */
  readonly starts: number;
  /** Starts that failed (e.g. the evidence store was down while the process opened it) and were tried again. */
  readonly failedStarts: number;
  /** SIGKILLs sent by {@link WorkerFleet.killRandom}. */
  readonly kills: number;
}

/**
 * A fixed number of worker process slots on one task queue. A slot whose process is killed starts a
 * new one at once, in the background, and keeps trying (1 s apart) until one polls: a process started
 * while the evidence store is down exits, and the next try starts it once the store is back.
 */
export class WorkerFleet {
  private readonly live: (WorkerProcess | undefined)[];
  private readonly restarting: (Promise<void> | undefined)[];
  private stopped = false;
  private starts = 0;
  private failedStarts = 0;
  private kills = 0;

  /**
   * @param slots the options of each slot's processes (every slot's own environment, e.g. latency drills).
   * @param logDir when set, each process's output is written there when it is killed
   *   (`slot<k>-<pid>.log`), for reading after the soak.
   */
  constructor(
    private readonly slots: readonly WorkerProcessOptions[],
    private readonly logDir?: string,
  ) {
    this.live = slots.map(() => undefined);
    this.restarting = slots.map(() => undefined);
    if (logDir !== undefined) mkdirSync(logDir, { recursive: true });
  }

  /** Start every slot and wait until each polls. @throws when a slot cannot start after its retries. */
  async start(): Promise<void> {
    await Promise.all(this.slots.map((_, i) => this.restart(i)));
  }

  /** Slots whose process is up (polling) now. */
  liveCount(): number {
    return this.live.filter((w) => w !== undefined).length;
  }

  /** Wait until at least `n` slots' processes poll (or the fleet is stopped). */
  async atLeast(n: number): Promise<void> {
    while (!this.stopped && this.liveCount() < n) await new Promise((r) => setTimeout(r, 100));
  }

  /**
   * SIGKILL the process of a random live slot, and start its replacement in the background.
   * @returns the killed slot's index, or undefined when no slot is live.
   */
  async killRandom(random: () => number = Math.random): Promise<number | undefined> {
    const candidates = this.live.flatMap((w, i) => (w === undefined ? [] : [i]));
    if (candidates.length === 0) return undefined;
    const slot = candidates[Math.floor(random() * candidates.length)] ?? candidates[0]!;
    const victim = this.live[slot];
    this.live[slot] = undefined;
    if (victim !== undefined) await this.end(slot, victim);
    this.kills++;
    void this.restart(slot);
    return slot;
  }

  /** Wait until no slot is restarting and every slot is live (restarts keep trying). */
  async settle(): Promise<void> {
    for (;;) {
      const pending = this.restarting.filter((p) => p !== undefined);
      if (pending.length === 0 && this.liveCount() === this.slots.length) return;
      await Promise.all(pending);
      if (pending.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
  }

  counts(): FleetCounts {
    return { starts: this.starts, failedStarts: this.failedStarts, kills: this.kills };
  }

  /** Stop restarting and SIGKILL every live process. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.restarting.filter((p) => p !== undefined));
    await Promise.all(this.live.flatMap((w, slot) => (w === undefined ? [] : [this.end(slot, w)])));
    this.live.fill(undefined);
  }

  /** SIGKILL one process and keep its output. */
  private async end(slot: number, worker: WorkerProcess): Promise<void> {
    await worker.kill();
    if (this.logDir !== undefined)
      writeFileSync(join(this.logDir, `slot${slot}-${worker.pid}.log`), worker.output());
  }

  private restart(slot: number): Promise<void> {
    const running = this.restarting[slot];
    if (running !== undefined) return running;
    const attempt = (async () => {
      while (!this.stopped) {
        try {
          const options = this.slots[slot]!;
          const worker = await startWorkerProcess(options);
          if (this.stopped) {
            await worker.kill();
            return;
          }
          this.live[slot] = worker;
          this.starts++;
          return;
        } catch (err) {
          this.failedStarts++;
          if (this.logDir !== undefined)
            writeFileSync(
              join(this.logDir, `slot${slot}-failed-start-${this.failedStarts}.log`),
              err instanceof Error ? err.message : String(err),
            );
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })().finally(() => {
      this.restarting[slot] = undefined;
    });
    this.restarting[slot] = attempt;
    return attempt;
  }
}
