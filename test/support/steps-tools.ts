import type { ToolDefinition, ToolExecutor } from '../../src/index.js';
import { FLAKY_READ_TOOL } from './workflow/graph-steps.js';

/** Attempts seen per `<runId>/<seq>` (this test process's worker only). */
const attempts = new Map<string, number>();

/** Test only: `steps.flaky_read@v1` (read), whose first `failures` attempts of a call throw. */
export const flakyReadDefinition: ToolDefinition = {
  name: FLAKY_READ_TOOL,
  version: 'v1',
  description: 'Test only: a read that fails its first `failures` attempts.',
  parameters: {
    type: 'object',
    properties: { failures: { type: 'integer', minimum: 0, maximum: 3 } },
    required: ['failures'],
    additionalProperties: false,
  },
  effect: 'read',
};

const flakyReadExecutor: ToolExecutor = {
  execute(_ctx, call) {
    const key = `${call.runId}/${call.seq}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    if (attempt <= Number(call.args.failures))
      return Promise.reject(new Error(`transient outage ${attempt}`));
    return Promise.resolve({ output: { attempt } });
  },
};

/** Register `steps.flaky_read@v1` (a fixture's `extend`). */
export function registerStepsTools(registry: {
  register(d: ToolDefinition, e: ToolExecutor): unknown;
}): void {
  registry.register(flakyReadDefinition, flakyReadExecutor);
}
