import { readdirSync, readFileSync } from 'node:fs';

/** Linux clock ticks per second for /proc/<pid>/stat times (USER_HZ, 100 on every Linux build here). */
const TICK_MS = 10;

/**
 * CPU ms (user + system) used so far by the processes whose command line mentions `needle` (the
 * private dev server: its temp directory is on its command line). Linux only; 0 when /proc is absent.
 */
export function processCpuMs(needle: string): number {
  let ticks = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended
    }
  }
  return ticks * TICK_MS;
}

/** CPU ms (user + system) of this process (worker, activities, client) so far. */
export function ownCpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}
