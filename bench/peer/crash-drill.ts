/**
 * The peer's crash drill: `npx tsx bench/peer/crash-drill.ts [--steps N] [--at K]` (defaults 5 and 3).
 * For each case (durability `sync` and `async` x where the process dies) a child process
 * (bench/peer/crash-child.ts) runs the LangGraph loop with a tool whose effect is a row appended to a
 * SQLite table, and is SIGKILLed at one point:
 *
 * - `tool`: inside tool call K, after its effect is committed, before the tool node returns;
 * - `model`: inside model call K + 1, after tool call K returned (its checkpoint is the last one).
 *
 * Then a new process resumes the same thread_id from the checkpointer (`invoke(null)`). Reported per
 * case: what the checkpointer held after the kill (the next node, tool calls counted), whether the run
 * finished (N tool calls, final text `done`), the effect rows, and which tool calls ran twice.
 * Prints a table and writes bench/results/peer-crash-<timestamp>.json. BENCHMARKS.md has the result.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { projectRoot } from '../../src/devserver/config.js';
import {
  compileLoop,
  inProcessSteps,
  openSaver,
  type Durability,
  type LoopStateValue,
} from './langgraph-loop.js';

const CHILD = join(projectRoot, 'bench', 'peer', 'crash-child.ts');

interface ChildResult {
  readonly pid: number;
  readonly output: string;
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
}

/**
 * Run one child; with `killOn`, SIGKILL it as soon as it prints that line.
 * @throws Error when it prints nothing expected within 90 s.
 */
function runChild(args: readonly string[], killOn?: string): Promise<ChildResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child ${args.join(' ')} did not finish in 90 s:\n${output}`));
    }, 90_000);
    const onData = (b: Buffer): void => {
      output += b.toString();
      if (killOn && output.includes(killOn)) child.kill('SIGKILL');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ pid: child.pid ?? -1, output, signal, code });
    });
  });
}

interface CaseResult {
  readonly durability: Durability;
  readonly killedIn: 'tool' | 'model';
  readonly steps: number;
  readonly at: number;
  readonly killedBySigkill: boolean;
  /** The last checkpoint after the kill: the nodes it would run next and the tool calls it counts. */
  readonly afterKill: { readonly next: readonly string[]; readonly toolCalls: number };
  readonly resumed: boolean;
  readonly final: unknown;
  readonly effectRows: number;
  /** Tool calls whose effect row is there more than once. */
  readonly duplicated: readonly number[];
  readonly effectPids: Readonly<Record<number, number[]>>;
}

async function drill(
  dir: string,
  durability: Durability,
  killedIn: 'tool' | 'model',
  steps: number,
  at: number,
): Promise<CaseResult> {
  const thread = `drill-${durability}-${killedIn}`;
  const checkpointDb = join(dir, `${thread}.db`);
  const effectsDb = join(dir, `${thread}-effects.db`);
  const common = [checkpointDb, effectsDb, thread, String(steps), durability];
  const first = await runChild(['start', ...common, killedIn, String(at)], `READY ${killedIn} ${at}`);
  if (!first.output.includes('READY'))
    throw new Error(`the first process did not reach the kill point:\n${first.output}`);

  // What the checkpointer holds now, read by this process (the dead one left it as it was).
  const { saver, db } = openSaver(checkpointDb);
  const snapshot = await compileLoop(saver, inProcessSteps(steps), steps).getState({
    configurable: { thread_id: thread },
  });
  db.close();
  const values = snapshot.values as Partial<LoopStateValue>;

  const second = await runChild(['resume', ...common]);
  const done = /DONE (.*)/.exec(second.output);
  const final: unknown = done ? JSON.parse(done[1]!) : second.output.slice(-500);
  const f = final as { toolCalls?: number; text?: string };

  const effects = new Database(effectsDb, { readonly: true });
  const rows = effects.prepare('SELECT seq, pid FROM effects ORDER BY rowid').all() as {
    seq: number;
    pid: number;
  }[];
  effects.close();
  const effectPids: Record<number, number[]> = {};
  for (const r of rows) (effectPids[r.seq] ??= []).push(r.pid);
  return {
    durability,
    killedIn,
    steps,
    at,
    killedBySigkill: first.signal === 'SIGKILL',
    afterKill: { next: snapshot.next, toolCalls: values.toolCalls ?? 0 },
    resumed: f.toolCalls === steps && f.text === 'done',
    final,
    effectRows: rows.length,
    duplicated: Object.entries(effectPids)
      .filter(([, pids]) => pids.length > 1)
      .map(([seq]) => Number(seq)),
    effectPids,
  };
}

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

async function main(): Promise<void> {
  const steps = flag('--steps', 5);
  const at = flag('--at', 3);
  const dir = mkdtempSync(join(tmpdir(), 'harness-peer-crash-'));
  const results: CaseResult[] = [];
  try {
    for (const durability of ['sync', 'async'] as const)
      for (const killedIn of ['tool', 'model'] as const) {
        const r = await drill(dir, durability, killedIn, steps, at);
        results.push(r);
        process.stderr.write(
          `${durability} ${killedIn}: resumed ${r.resumed}, effect rows ${r.effectRows}, duplicated ${JSON.stringify(r.duplicated)}\n`,
        );
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const head = [
    'durability',
    'killed in',
    'SIGKILL',
    'checkpoint after kill',
    'resumed',
    'effect rows',
    'ran twice',
  ];
  const body = results.map((r) => [
    r.durability,
    r.killedIn === 'tool' ? `tool call ${r.at}, after its effect` : `model call ${r.at + 1}`,
    r.killedBySigkill ? 'yes' : 'NO',
    `next [${r.afterKill.next.join(',')}], ${r.afterKill.toolCalls} tool calls`,
    r.resumed ? 'yes' : 'NO',
    `${r.effectRows} (for ${r.steps} calls)`,
    r.duplicated.length ? `tool call ${r.duplicated.join(', ')}` : 'none',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (r: readonly string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log([line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n'));
  const out = resolve(projectRoot, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const file = join(out, `peer-crash-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ steps, at, results }, null, 1)}\n`);
  console.log(`\nresults: ${file}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
