import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_ENV_NAMES } from '../../apps/coding/child-env.js';
import { CODING_PIPELINE_ROUTE } from '../../apps/coding/coding-script.js';
import { createDemoRepo, type DemoRepo } from '../../apps/coding/demo-repo.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';

/** Fake credentials in the worker's environment (the worker runs in this process). */
const SECRETS: Record<string, string> = {
  OPENAI_API_KEY: 'sk-test-secret-openai',
  ANTHROPIC_API_KEY: 'sk-test-secret-anthropic',
  HARNESS_PRIVATE_TOKEN: 'hx-test-secret-harness',
  TEMPORAL_API_KEY: 'tmprl-test-secret',
  GIT_SECRET_TOKEN: 'git-test-secret',
  SSH_AUTH_SOCK: '/tmp/test-secret-agent.sock',
};

/** Set by the shell that runs a hook or the test script, not by the harness. */
const SHELL_SET = new Set(['PWD', 'OLDPWD', 'SHLVL', '_']);
/**
 * Set by git itself for the hooks it runs (index, editor, object directories, quarantine of a
 * receiving repository, ...): names only, their values come from git, not from the worker.
 */
const GIT_SET = new Set([
  'GIT_DIR',
  'GIT_INDEX_FILE',
  'GIT_EDITOR',
  'GIT_PREFIX',
  'GIT_EXEC_PATH',
  'GIT_AUTHOR_DATE',
  'GIT_REFLOG_ACTION',
  'GIT_PUSH_OPTION_COUNT',
  'GIT_QUARANTINE_PATH',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_PROTOCOL',
  'GIT_LITERAL_PATHSPECS',
]);

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.invalid',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.invalid',
    },
  }).trim();
}

function writeHook(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** `env` output as name -> value (values here are single-line). */
function parseEnv(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) vars.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return vars;
}

let fixtures: HarnessFixture[] = [];
const savedEnv = new Map<string, string | undefined>();

afterEach(async () => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  savedEnv.clear();
  for (const h of fixtures) await h.close();
  fixtures = [];
});

/**
 * The demo repository with probes: a pre-commit and a pre-push hook in the working repository, a
 * pre-receive hook in the bare remote, and a test.sh (committed on main) that each write their
 * whole environment to a file in `out`.
 */
function probedDemo(out: string): DemoRepo {
  const demo = createDemoRepo(mkdtempSync(join(tmpdir(), 'coding-env-')));
  const script = readFileSync(join(demo.repoDir, 'test.sh'), 'utf8');
  writeFileSync(
    join(demo.repoDir, 'test.sh'),
    script.replace('set -e\n', `set -e\nenv > '${join(out, 'pipeline.env')}'\n`),
  );
  git(demo.repoDir, ['commit', '--quiet', '-m', 'Probe the pipeline environment', '--', 'test.sh']);
  git(demo.repoDir, ['push', '--quiet', demo.remoteDir, 'main:main']);
  writeHook(join(demo.repoDir, '.git', 'hooks', 'pre-commit'), `env > '${join(out, 'pre-commit.env')}'`);
  writeHook(
    join(demo.repoDir, '.git', 'hooks', 'pre-push'),
    `cat > /dev/null\nenv > '${join(out, 'pre-push.env')}'`,
  );
  writeHook(
    join(demo.remoteDir, 'hooks', 'pre-receive'),
    `cat > /dev/null\nenv > '${join(out, 'pre-receive.env')}'`,
  );
  return demo;
}

describe('coding tools pass no worker credentials to git, hooks or the pipeline (real git, real server)', () => {
  it('every hook and the test script see only the allowlisted environment', async () => {
    const out = mkdtempSync(join(tmpdir(), 'coding-env-out-'));
    const demo = probedDemo(out);
    for (const [name, value] of Object.entries(SECRETS)) {
      savedEnv.set(name, process.env[name]);
      process.env[name] = value;
    }
    const h = await createHarnessFixture('coding-env', {
      coding: { repoDir: demo.repoDir, remoteDir: demo.remoteDir },
    });
    fixtures.push(h);
    const handle = await h.start({
      profile: { name: 'coding.pipeline', version: 'v1' },
      modelRoute: CODING_PIPELINE_ROUTE,
      task: { message: 'Commit, push and test the README change' },
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.terminalReason).toBeNull();
    expect(result.status).toBe('succeeded');

    const allowed = new Set<string>([...CHILD_ENV_NAMES, ...SHELL_SET, ...GIT_SET]);
    for (const probe of ['pre-commit', 'pre-push', 'pre-receive', 'pipeline']) {
      const file = join(out, `${probe}.env`);
      expect(existsSync(file), `${probe} ran`).toBe(true);
      const text = readFileSync(file, 'utf8');
      for (const secret of Object.values(SECRETS)) expect(text, probe).not.toContain(secret);
      const vars = parseEnv(text);
      expect(
        [...vars.keys()].filter((name) => !allowed.has(name)),
        probe,
      ).toEqual([]);
      for (const name of Object.keys(SECRETS)) expect(vars.has(name), `${probe} ${name}`).toBe(false);
      // the worker's PATH (git puts its exec dir in front for hooks)
      expect(vars.get('PATH')?.endsWith(process.env.PATH ?? '')).toBe(true);
      expect(vars.get('HOME')).not.toBe(process.env.HOME);
      expect(vars.get('LC_ALL')).toBe('C');
      expect(vars.get('GIT_CONFIG_NOSYSTEM')).toBe('1');
    }
    // git ran with the harness identity, and the pipeline with CI=true and its own HOME
    expect(parseEnv(readFileSync(join(out, 'pre-commit.env'), 'utf8')).get('GIT_AUTHOR_NAME')).toBe(
      'Agent Harness',
    );
    const pipeline = parseEnv(readFileSync(join(out, 'pipeline.env'), 'utf8'));
    expect(pipeline.get('CI')).toBe('true');
    expect(pipeline.get('HOME')).toMatch(/harness-pipeline-/);
  });
});
