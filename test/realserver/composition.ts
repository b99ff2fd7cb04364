import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RefundComposition } from '../../apps/refund/composition.js';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { withSchema } from '../support/postgres.js';
import { TEST_PRINCIPALS } from '../support/principals.js';
import { testRunId } from '../support/run-id.js';
import { tier } from './tier.js';

/** A fresh schema name in the tier's PostgreSQL database (one evidence store per test). */
export function freshSchema(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * The tests' showcase composition with its evidence store on the tier's PostgreSQL (a schema of its
 * own), the refund business store in a temp folder, the test principals, and a scripted answer
 * model (`scripted/answer`) for short support runs.
 */
export async function tierComposition(
  identity: string,
  storeUrl: string = withSchema(tier().storeUrl, freshSchema('store')),
): Promise<RefundComposition> {
  const dir = mkdtempSync(join(tmpdir(), 'realserver-'));
  const composition = await createShowcaseComposition({
    storeUrl,
    refundStorePath: join(dir, 'refund.db'),
    env: {},
    principals: TEST_PRINCIPALS,
    scripts: {
      'scripted/answer': {
        entries: [],
        fallback: { text: 'Answered.', toolCalls: [], usage: { inputTokens: 5, outputTokens: 2 } },
      },
    },
  });
  return { ...composition, identity };
}

/** Start a short support run (`support.answer@v1` on the scripted answer model). */
export function startAnswerRun(client: Client, taskQueue: string, name: string): Promise<WorkflowHandle> {
  return startAgentRun(client, {
    taskQueue,
    workflowId: testRunId(name),
    input: {
      schemaVersion: 1,
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: 'scripted/answer',
      task: { message: 'hello' },
    },
  });
}
