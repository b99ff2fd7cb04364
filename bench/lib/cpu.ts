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

/** utime, stime, cutime, cstime (ticks) and the parent pid of `pid`; undefined when it has ended. */
function statOf(pid: number): { self: number; children: number; ppid: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return {
      ppid: Number(fields[1]),
      self: Number(fields[11]) + Number(fields[12]),
      children: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined;
  }
}

/** CPU ms (user + system, all threads) used so far by process `pid`; 0 once it has ended. Linux only. */
export function pidCpuMs(pid: number): number {
  return (statOf(pid)?.self ?? 0) * TICK_MS;
}

/**
 * CPU ms used so far by a process and its direct children: its own time, the time of the children
 * it has reaped (cutime/cstime) and the time of those still alive. For a PostgreSQL server: the
 * postmaster, its background processes and every connection's backend, ended ones included. Linux only.
 */
export function processTreeCpuMs(pid: number): number {
  const root = statOf(pid);
  if (!root) return 0;
  let ticks = root.self + root.children;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return ticks * TICK_MS;
  }
  for (const p of pids) {
    const s = statOf(Number(p));
    if (s && s.ppid === pid) ticks += s.self;
  }
  return ticks * TICK_MS;
}
