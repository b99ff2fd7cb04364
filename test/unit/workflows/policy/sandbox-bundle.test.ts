import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('workflow sandbox bundle', () => {
  it('bundles policy, completion and NamedRegistry with the Temporal workflow bundler', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: new URL('./sandbox/policy-workflow.ts', import.meta.url).pathname,
      logger: quiet,
    });
    expect(code).toContain('policySandboxCheck');
    expect(code).toContain('policy.no_rule_matched');
  }, 60_000);
});
