/**
 * An outside team's first day (issue 37): the packed tarball installed into an empty project with
 * docs/quickstart.md's install line, an app of its own (test/fixtures/outside-app: a `stock.adjust`
 * write tool on a JSON-lines ledger, its reconciler, a profile whose policy asks for a signed
 * approval), against a Temporal server the test starts itself from the CLI binary, without the
 * harness's dev wrapper, so the worker registers the search attributes itself. Each run's worker is
 * SIGKILLed once: run 1 before the ledger commit, run 2 right after it. Each run must succeed with
 * exactly one ledger line.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_SEARCH_ATTRIBUTES } from '../../src/contract/visibility.js';
import { projectRoot } from '../../src/devserver/config.js';
import { startAppProcess, type AppProcess } from '../support/app-process.js';
import { relativeLinks } from '../support/markdown-links.js';
import { startOwnTemporalServer, type OwnTemporalServer } from '../support/own-temporal-server.js';
import { installIntoEmptyProject, installLine, packHarness } from '../support/packed-install.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const FIXTURE = join(projectRoot, 'test', 'fixtures', 'outside-app');
const dir = mkdtempSync(join(tmpdir(), 'harness-outside-'));
const project = join(dir, 'stock-app');
const markers = join(dir, 'markers');
const ledgerFile = join(dir, 'ledger.jsonl');
const taskQueue = uniqueTaskQueue('outside');

let serverStarting: Promise<OwnTemporalServer> | undefined;
let server: OwnTemporalServer | undefined;
let worker: AppProcess | undefined;
let npmOutput = '';

const env = (): Record<string, string> => ({
  TEMPORAL_ADDRESS: server!.address,
  TASK_QUEUE: taskQueue,
  LEDGER_FILE: ledgerFile,
  MARKER_DIR: markers,
  STORE_FILE: join(dir, 'evidence.db'),
  HALTS: 'bolt:before,nut:after',
});

interface LedgerEntry {
  readonly key: string;
  readonly sku: string;
  readonly delta: number;
  /** The worker process that committed it. */
  readonly pid: number;
}

const ledger = (): LedgerEntry[] =>
  existsSync(ledgerFile)
    ? readFileSync(ledgerFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LedgerEntry)
    : [];

async function startWorker(): Promise<AppProcess> {
  const w = startAppProcess(project, 'worker.mjs', [], env());
  await w.waitFor(/worker running/, 120_000);
  return w;
}

async function waitForFile(file: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`no ${file} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The harness's attribute names the server knows (custom ones), from `temporal operator`. */
async function registeredAttributes(): Promise<string[]> {
  const out = await server!.temporal([
    'operator',
    'search-attribute',
    'list',
    '--namespace',
    'default',
    '-o',
    'json',
  ]);
  const names = RUN_SEARCH_ATTRIBUTES.map((k) => k.name);
  return names.filter((n) => out.includes(`"${n}"`));
}

/** The `tool.*` and `recovery.*` events (type and data) the evidence store holds for `workflowId`. */
async function storedEvents(workflowId: string): Promise<Array<[string, Record<string, unknown>]>> {
  const look = startAppProcess(project, 'evidence.mjs', [], env());
  expect(await look.exited(), look.output()).toBe(0);
  const runs = look
    .output()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { runId: string; events: Array<[string, Record<string, unknown>]> });
  return runs.find((r) => r.runId === workflowId)?.events ?? [];
}

/**
 * One run: start it, let the tool halt at `point` (marker file), SIGKILL the worker there, start a
 * fresh worker and wait for the run's end. Returns the client's output and the ledger at kill time.
 */
async function runWithKill(task: string, sku: string, point: 'before' | 'after') {
  const client = startAppProcess(project, 'client.mjs', [task, sku], env());
  await client.waitFor(/approval decision\.accepted/, 120_000);
  await waitForFile(join(markers, `halted-${sku}-${point}`), 60_000);
  const atKill = ledger().filter((e) => e.sku === sku);
  const killed = worker!.pid;
  await worker!.kill('SIGKILL');
  worker = await startWorker();
  await client.waitFor(/^result /m, 120_000);
  expect(await client.exited()).toBe(0);
  const workflowId = client.output().match(/^started (\S+)/m)![1]!;
  return { output: client.output(), atKill, killed, events: await storedEvents(workflowId) };
}

describe('an outside app on the packed tarball, its own Temporal server, workers killed mid-write', () => {
  beforeAll(async () => {
    mkdirSync(markers, { recursive: true });
    serverStarting = startOwnTemporalServer();
    serverStarting.catch(() => undefined);
    const packages = installLine(readFileSync(join(projectRoot, 'docs', 'quickstart.md'), 'utf8'));
    npmOutput = await installIntoEmptyProject(project, await packHarness(join(dir, 'pack')), packages);
    for (const f of readdirSync(FIXTURE)) copyFileSync(join(FIXTURE, f), join(project, f));
    server = await serverStarting;
    const keys = startAppProcess(project, 'keys.mjs', [], {});
    expect(await keys.exited(), keys.output()).toBe(0);
  }, 420_000); // npm builds better-sqlite3 from source when no prebuilt binary is reachable

  afterAll(async () => {
    await worker?.kill('SIGTERM');
    // Also when beforeAll timed out while the server was still starting.
    await (server ?? (await serverStarting?.catch(() => undefined)))?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs without engine warnings and without the optional packages it does not use', () => {
    expect(npmOutput).not.toMatch(/EBADENGINE/);
    const installed = (p: string) => existsSync(join(project, 'node_modules', p, 'package.json'));
    for (const p of ['openai', '@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'pg', 'fastify', 'jose'])
      expect(installed(p), p).toBe(false);
    expect(installed('@temporalio/testing')).toBe(false);
    expect(installed('better-sqlite3')).toBe(true);
  });

  it('a feature whose optional package is not installed fails naming the package to install', async () => {
    const store = startAppProcess(project, 'missing.mjs', [], {});
    expect(await store.exited(), store.output()).toBe(0);
    expect(store.output()).toContain('postgres: package.missing: the PostgreSQL evidence store');
    expect(store.output()).toContain("npm install pg@'^8.23.1'");
    const cli = startAppProcess(
      project,
      join('node_modules', '.bin', 'harness'),
      ['token', '--tenant', 't', '--user', 'u'],
      {},
    );
    expect(await cli.exited()).not.toBe(0);
    expect(cli.output()).toMatch(/needs the npm package '(fastify|jose)', which is not installed/);
  });

  it('every relative link of its shipped Markdown resolves inside node_modules/agent-harness', () => {
    const root = join(project, 'node_modules', 'agent-harness');
    const markdown = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.md'));
    expect(markdown).toEqual(expect.arrayContaining(['README.md', join('docs', 'quickstart.md')]));
    const dead: string[] = [];
    for (const md of markdown) {
      for (const target of relativeLinks(readFileSync(join(root, md), 'utf8'))) {
        const resolved = normalize(join(root, dirname(md), decodeURIComponent(target)));
        const inside = !relative(root, resolved).startsWith(`..${sep}`);
        if (!inside || !existsSync(resolved)) dead.push(`${md} -> ${target}`);
      }
    }
    expect(dead).toEqual([]);
  });

  it("the worker registers the harness's search attributes on a server started without them", async () => {
    expect(await registeredAttributes()).toEqual([]);
    worker = await startWorker();
    expect(await registeredAttributes()).toEqual(RUN_SEARCH_ATTRIBUTES.map((k) => k.name));
  }, 150_000);

  it('killed before the ledger commit: the reconciler says not_applied, the write runs once, the run succeeds', async () => {
    const { output, atKill, killed, events } = await runWithKill(
      'Take 3 bolts out of stock',
      'bolt',
      'before',
    );
    expect(atKill).toEqual([]);
    expect(output).toContain('awaiting_confirmation');
    expect(output).toContain('run succeeded');
    const bolts = ledger().filter((e) => e.sku === 'bolt');
    expect(bolts).toHaveLength(1);
    expect(bolts[0]).toMatchObject({ sku: 'bolt', delta: -3 });
    expect(bolts[0]!.pid, 'committed by the fresh worker').not.toBe(killed);
    expect(events).toContainEqual(['tool.failed', expect.objectContaining({ status: 'outcome_unknown' })]);
    expect(events).toContainEqual([
      'tool.failed',
      expect.objectContaining({ status: 'not_applied', resolvedBy: 'reconciler' }),
    ]);
    expect(events).toContainEqual([
      'recovery.decided',
      expect.objectContaining({ decision: 'retry_attempt', reason: 'not_applied:reconciler' }),
    ]);
    expect(events).toContainEqual([
      'tool.completed',
      expect.objectContaining({ status: 'succeeded', activityAttempt: 2 }),
    ]);
  }, 240_000);

  it('killed after the ledger commit: the reconciler finds it, nothing runs twice, the run succeeds', async () => {
    const { output, atKill, killed, events } = await runWithKill('Put 5 nuts into stock', 'nut', 'after');
    expect(atKill).toHaveLength(1);
    expect(atKill[0]!.pid, 'committed by the worker that was then killed').toBe(killed);
    expect(events).toContainEqual([
      'tool.completed',
      expect.objectContaining({ status: 'succeeded', resolvedBy: 'reconciler' }),
    ]);
    expect(events).toContainEqual([
      'recovery.decided',
      expect.objectContaining({ decision: 'resume', reason: 'reconciled_succeeded' }),
    ]);
    expect(events.filter(([type]) => type === 'tool.completed')).toHaveLength(1);
    expect(output).toContain('run succeeded');
    const nuts = ledger().filter((e) => e.sku === 'nut');
    expect(nuts).toEqual(atKill);
    expect(nuts[0]).toMatchObject({ sku: 'nut', delta: 5 });
    expect(ledger()).toHaveLength(2);
  }, 240_000);
});
