/**
 * `npm run bench:proof -- [--steps N] [--every N,N]` (issue 39): what the signed chain heads cost in
 * history. One private dev server per setting runs one `bench.steps@v1` run of N steps (default 200)
 * and the bare workflow's run of the same size: first without an attestation key (no heads), then
 * with one at each `HARNESS_ATTESTATION_EVERY` (default 100 and 10). Per run: history events and
 * encoded bytes per step (bench/lib/history.ts), and the heads found in the activity results (each a
 * JWS string inside the result's payload, so a head adds bytes but never an event). Prints a table on
 * stdout and writes bench/results/proof-bytes-<timestamp>.json; exits 2 when a head adds an event or a
 * keyed run carries no head. See BENCHMARKS.md, "What the signed heads cost in history".
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type proto from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { CHAIN_HEAD_TOKEN_TYPE } from '../../src/contract/chain-head.js';
import { projectRoot } from '../../src/devserver/config.js';
import { bundleWorkflows } from '../../src/worker/bundle.js';
import { expectDone, startRun, type Arm } from '../lib/arms.js';
import { analyzeHistory } from '../lib/history.js';
import { machineInfo } from '../lib/machine.js';
import { parseOptions } from '../lib/options.js';
import { progress } from '../lib/progress.js';
import { createRig } from '../lib/rig.js';
import { benchWorkflowsPath } from '../lib/workflows-path.js';

type History = proto.temporal.api.history.v1.IHistory;

interface Sample {
  readonly setting: string;
  readonly arm: Arm;
  readonly steps: number;
  readonly events: number;
  readonly bytes: number;
  readonly bytesPerStep: number;
  readonly eventsPerStep: number;
  readonly heads: number;
  readonly headBytes: number;
}

function flag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

/** Every string in a JSON value that is a compact JWS of a signed chain head. */
function collectHeads(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    const [header] = value.split('.');
    if (value.split('.').length !== 3 || !header) return;
    try {
      const typ = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { typ?: unknown }).typ;
      if (typ === CHAIN_HEAD_TOKEN_TYPE) out.push(value);
    } catch {
      // not a JWS
    }
  } else if (Array.isArray(value)) value.forEach((v) => collectHeads(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => collectHeads(v, out));
}

/** The signed heads inside the run's activity results (event flushes, model and tool calls, local activity markers). */
function headsIn(history: History): string[] {
  const out: string[] = [];
  for (const e of history.events ?? []) {
    // An activity's result, or a local activity's (the last flush) in its marker.
    const payloads =
      e.activityTaskCompletedEventAttributes?.result?.payloads ??
      e.markerRecordedEventAttributes?.details?.result?.payloads ??
      [];
    for (const p of payloads) {
      if (!p.data) continue;
      try {
        collectHeads(JSON.parse(Buffer.from(p.data).toString('utf8')), out);
      } catch {
        // not JSON
      }
    }
  }
  return out;
}

function keyFile(dir: string): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const path = join(dir, 'attestation.json');
  writeFileSync(
    path,
    JSON.stringify({ keyId: 'bench-attest', privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) }),
  );
  return path;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const steps = Number(flag(argv, '--steps') ?? 200);
  const everies = (flag(argv, '--every') ?? '100,10').split(',').map(Number);
  if (!Number.isInteger(steps) || steps < 2) throw new Error('--steps needs a whole number >= 2');
  if (everies.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--every needs whole numbers >= 1');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const { dataDir } = parseOptions([]);
  const keyDir = mkdtempSync(join(tmpdir(), 'proof-bytes-'));
  const machine = await machineInfo();
  progress(`${machine.nproc} CPU, node ${machine.node}; ${steps} steps per run`);
  const bundle = await bundleWorkflows({ workflowsPath: benchWorkflowsPath });
  const settings: { name: string; env: NodeJS.ProcessEnv }[] = [
    { name: 'no key', env: {} },
    ...everies.map((every) => ({
      name: `key, every ${every}`,
      env: { HARNESS_ATTESTATION_KEY: keyFile(keyDir), HARNESS_ATTESTATION_EVERY: String(every) },
    })),
  ];
  const samples: Sample[] = [];
  let failed = false;
  try {
    for (const setting of settings) {
      progress(`${setting.name}: starting a private dev server`);
      const rig = await createRig(bundle, [steps], dataDir, () => undefined, setting.env);
      try {
        const worker = await rig.startWorker('proof-bytes');
        for (const arm of ['harness', 'bare'] as const) {
          const handle = await startRun(rig, arm, steps, 'proof-bytes', `proof-bytes-${arm}-${samples.length}`);
          await expectDone(handle, arm, steps);
          const history = await handle.fetchHistory();
          const stats = analyzeHistory(history);
          const first = stats.marks[0]!;
          const last = stats.marks[stats.marks.length - 1]!;
          const span = stats.marks.length - 1;
          const heads = headsIn(history);
          samples.push({
            setting: setting.name,
            arm,
            steps,
            events: stats.events,
            bytes: stats.bytes,
            bytesPerStep: (last.bytes - first.bytes) / span,
            eventsPerStep: (last.events - first.events) / span,
            heads: heads.length,
            headBytes: heads.reduce((n, h) => n + h.length, 0),
          });
          progress(`  ${arm}: ${stats.events} events, ${(stats.bytes / 1024).toFixed(0)} KiB, ${heads.length} heads`);
        }
        await worker.stop();
      } finally {
        await rig.close();
      }
    }
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
  const harness = samples.filter((s) => s.arm === 'harness');
  const base = harness[0]!;
  const bare = samples.filter((s) => s.arm === 'bare');
  const bareBytes = bare.reduce((n, s) => n + s.bytesPerStep, 0) / bare.length;
  const rows = harness.map((s) => ({
    setting: s.setting,
    events: s.events,
    eventsPerStep: s.eventsPerStep,
    bytesPerStep: Math.round(s.bytesPerStep),
    vsBare: +(s.bytesPerStep / bareBytes).toFixed(3),
    vsNoKey: +(s.bytesPerStep / base.bytesPerStep).toFixed(3),
    heads: s.heads,
    bytesPerHead: s.heads ? Math.round(s.headBytes / s.heads) : 0,
  }));
  for (const r of rows.slice(1)) {
    if (r.events !== base.events) {
      failed = true;
      progress(`FAIL: ${r.setting} has ${r.events} events, ${base.events} without a key`);
    }
    if (r.heads === 0) {
      failed = true;
      progress(`FAIL: ${r.setting} carries no head`);
    }
  }
  const lines = [
    `bare: ${Math.round(bareBytes)} bytes per step`,
    'setting            events  events/step  bytes/step  vs bare  vs no key  heads  bytes/head',
    ...rows.map(
      (r) =>
        `${r.setting.padEnd(18)} ${String(r.events).padStart(6)}  ${r.eventsPerStep.toFixed(2).padStart(11)}  ${String(r.bytesPerStep).padStart(10)}  ${r.vsBare.toFixed(2).padStart(6)}x  ${r.vsNoKey.toFixed(3).padStart(8)}x  ${String(r.heads).padStart(5)}  ${String(r.bytesPerHead).padStart(10)}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const dir = resolve(projectRoot, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `proof-bytes-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ machine, steps, everies, samples, rows, bareBytesPerStep: bareBytes }, null, 2)}\n`);
  progress(`results in ${file}`);
  process.exit(failed ? 2 : 0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
