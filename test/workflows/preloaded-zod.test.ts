import { describe, expect, it } from 'vitest';
import { useTestWorker } from '../support/temporal.js';
import { testRunId } from '../support/run-id.js';
import type { sandboxZod } from '../support/workflows.js';

/**
 * Zod is evaluated once per worker and shared by every run (src/workflows/temporal/preloaded-zod.ts): the
 * SDK deep-freezes it, so everything zod would set lazily is set before. Runs parse and refuse as
 * before, several of them on one worker; only `z.config()` in workflow code is refused.
 */
describe('zod in the workflow sandbox (real server, the worker bundle)', () => {
  const worker = useTestWorker('sandbox-zod');

  it('is the preloaded, frozen copy in every run: jitless, parsing and refusing as usual', async () => {
    for (let i = 0; i < 3; i++) {
      const facts = await worker.temporal().client.workflow.execute<typeof sandboxZod>('sandboxZod', {
        taskQueue: worker.taskQueue,
        workflowId: testRunId('sandbox-zod'),
      });
      expect(facts).toEqual({
        frozen: true,
        jitless: true,
        parsed: { amount: 5, note: 'ok' },
        refused: 'too_small,unrecognized_keys',
        configRefused: 'TypeError',
      });
    }
  });
});
