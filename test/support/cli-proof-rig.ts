import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import type { AgentRunInput } from '../../src/contract/run-input.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { collect, harnessBin, runCli, type CliResult } from '../e2e/cli-support.js';
import { testAttestation, writeAttestationFiles } from './attestation.js';
import { decide } from './decisions.js';
import { createHarnessFixture, waitForState, type HarnessFixture } from './harness.js';

/**
 * What the proof CLI tests share (test/e2e/cli-proof, cli-erase, cli-redact): a harness whose worker
 * signs chain heads, one finished refund run with an approved write, the attestation files an operator
 * keeps, and the CLI spawned as an operator runs it (with the run's store, queue and registry) or as an
 * auditor does (nothing of the harness's environment).
 */
export interface CliProofRig {
  readonly h: HarnessFixture;
  /** The variables the operator's CLI is spawned with (`cliEnv` adds the tests' app). */
  readonly env: NodeJS.ProcessEnv;
  /** The finished run's workflow id. */
  readonly runId: string;
  /** The finished run's result (not checked here: each test says what it expects). */
  readonly result: AgentRunResult;
  /** The evidence store's SQLite file (`HARNESS_STORE_URL`). */
  readonly dbFile: string;
  /** `harness <args>` as the operator runs it, to its end. */
  cli(...args: string[]): Promise<CliResult>;
  /** `harness <args>` in `cwd` with nothing of the harness's environment: no store, no server, no app. */
  bare(cwd: string, ...args: string[]): Promise<CliResult>;
  /** `harness verify --bundle` of the bundle `text` in a fresh directory with nothing configured. */
  verifyElsewhere(text: string): Promise<CliResult>;
  /**
   * `harness export <runId> --bundle <file> <flags>`, asserted to exit 0; the file's text and the output.
   * @throws the assertion's error (with the CLI's stderr) on another exit code.
   */
  exportBundle(file: string, ...flags: string[]): Promise<{ text: string; out: CliResult }>;
  close(): Promise<void>;
}

/** The run {@link cliProofRig} finishes and what its CLI is given. */
export interface CliProofRigOptions {
  /** The refund run's task (`refund.graph@v1`): it must ask for a write the approver approves. */
  readonly task: AgentRunInput['task'];
  /**
   * Also give the CLI the worker's private key file (`HARNESS_ATTESTATION_KEY`), as `harness erase`
   * needs to sign its erasure records; without it the CLI has the registry only.
   */
  readonly signingKey?: boolean;
}

/**
 * A harness fixture on `name` with a fresh attestation key, its files in the fixture's directory, and
 * one refund run of `o.task`: started, its write approved (`policy R001`) and awaited to its end.
 * @throws when the run never waits for confirmation (30 s) or its result fails (the fixture closed);
 *   the fixture's errors.
 */
export async function cliProofRig(name: string, o: CliProofRigOptions): Promise<CliProofRig> {
  const attestation = testAttestation();
  const h = await createHarnessFixture(name, {}, { attestation: attestation.signer });
  // The registry verifies the workers' heads; `harness erase` signs its records with their key.
  const { registryFile, keyFile } = writeAttestationFiles(h.dir, attestation);
  const dbFile = join(h.dir, 'evidence.db');
  const env: NodeJS.ProcessEnv = {
    HARNESS_ATTESTATION_KEYS: registryFile,
    ...(o.signingKey ? { HARNESS_ATTESTATION_KEY: keyFile } : {}),
    HARNESS_TASK_QUEUE: h.taskQueue,
    HARNESS_STORE_URL: `sqlite:${dbFile}`,
    HARNESS_REFUND_DB: join(h.dir, 'refund.db'),
    HARNESS_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
  };
  let finished: { runId: string; result: AgentRunResult };
  try {
    finished = await approvedRun(h, o.task);
  } catch (err) {
    await h.close();
    throw err;
  }
  const { runId, result } = finished;

  const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);
  const bare = (cwd: string, ...args: string[]): Promise<CliResult> => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('HARNESS_') && !k.startsWith('TEMPORAL_')),
    );
    return collect(spawn(process.execPath, [harnessBin, ...args], { cwd, env: clean, stdio: 'pipe' }));
  };
  return {
    h,
    env,
    runId,
    result,
    dbFile,
    cli,
    bare,
    verifyElsewhere: (text) => {
      const fresh = mkdtempSync(join(tmpdir(), 'harness-auditor-'));
      writeFileSync(join(fresh, 'proof.json'), text);
      return bare(fresh, 'verify', '--bundle', 'proof.json');
    },
    exportBundle: async (file, ...flags) => {
      const out = await cli('export', runId, '--bundle', file, ...flags);
      expect(out.code, out.stderr).toBe(0);
      return { text: readFileSync(file, 'utf8'), out };
    },
    close: () => h.close(),
  };
}

/** A refund run of `task` started, its write approved (`policy R001`), awaited to its end. */
async function approvedRun(
  h: HarnessFixture,
  task: AgentRunInput['task'],
): Promise<{ runId: string; result: AgentRunResult }> {
  const handle = await h.start({ task });
  const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
  await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
  return { runId: handle.workflowId, result: (await handle.result()) as AgentRunResult };
}
