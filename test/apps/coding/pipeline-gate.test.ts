import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCodingTools } from '../../../apps/coding/coding-tools.js';
import { codingToolsPolicy } from '../../../apps/coding/workflow/coding-profiles.js';
import { refundDefinition } from '../../../apps/refund/workflow/definition.js';
import { authorizeDispatch, presentTools } from '../../../src/workflows/policy/present-tools.js';
import { RulesPolicy } from '../../../src/workflows/policy/rules-policy.js';

const NOW = '2026-01-01T00:00:00.000Z';
const dir = mkdtempSync(join(tmpdir(), 'coding-gate-'));
const tools = createCodingTools({ repoDir: join(dir, 'repo'), remoteDir: join(dir, 'remote.git') });
const pipeline = tools.find((t) => t.definition.name === 'pipeline.run')!.definition;
const readOnly = refundDefinition.policies.find((p) => p.name === 'read_only')!;

describe('pipeline.run runs repository code: declared a write, so policies can gate it', () => {
  it('is pipeline.run@v2 with effect write; v1 (a read) is no longer offered', () => {
    expect(pipeline).toMatchObject({ name: 'pipeline.run', version: 'v2', effect: 'write' });
    expect(tools.filter((t) => t.definition.name === 'pipeline.run')).toHaveLength(1);
  });

  it('a read-only policy hides it and denies it at dispatch', () => {
    expect(presentTools([pipeline], readOnly, NOW).visible).toEqual([]);
    expect(authorizeDispatch(readOnly, pipeline, { branch: 'agent/change' }, NOW)).toMatchObject({
      decision: 'deny',
      reasonCodes: ['policy.effect_not_allowed'],
    });
  });

  it('coding.tools@v1 allows it like git.commit and git.push (the executor runs only what this run pushed)', () => {
    expect(authorizeDispatch(codingToolsPolicy, pipeline, { branch: 'agent/change' }, NOW).decision).toBe(
      'allow',
    );
  });

  it('a deployment that wants a person to approve each pipeline run says so in a rules policy', () => {
    const reviewed = new RulesPolicy({
      name: 'coding.reviewed',
      version: 'v1',
      customReasonCodes: ['coding.pipeline_runs_code'],
      rules: [
        {
          id: 'pipeline-needs-approval',
          when: { tool: 'pipeline.run', effect: 'write' },
          decision: 'require_confirmation',
          reasonCodes: ['coding.pipeline_runs_code'],
        },
      ],
      default: { decision: 'allow' },
    });
    expect(authorizeDispatch(reviewed, pipeline, { branch: 'agent/change' }, NOW)).toMatchObject({
      decision: 'require_confirmation',
      reasonCodes: ['policy.rule_matched', 'coding.pipeline_runs_code'],
    });
  });
});
