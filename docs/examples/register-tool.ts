/**
 * Define and register a tool, validate a model's arguments, run the executor, pin a snapshot.
 * Compiled and run by test/unit/registry/docs-examples.test.ts; docs/extending.md quotes it.
 */
import type { ToolDefinition, ToolExecutor } from '../../src/contract/tool.js';
import { ToolRegistry } from '../../src/registry/index.js';
import type { ArgumentValidationResult } from '../../src/registry/index.js';

// --- definition ---
const reportTool: ToolDefinition = {
  name: 'report.generate',
  version: 'v1',
  description: 'Generate an observed report for one quarter',
  effect: 'read',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['quarter'],
    properties: {
      quarter: { type: 'string', pattern: '^[0-9]{4}-Q[1-4]$', description: 'e.g. 2024-Q3' },
      format: { enum: ['pdf', 'csv'], default: 'pdf' },
    },
  },
};

// Worker-side binding: clients and credentials live here, never in the definition.
const reportExecutor: ToolExecutor = {
  execute(_ctx, call) {
    return Promise.resolve({ output: { status: 'ready', quarter: call.args.quarter } });
  },
};
// --- end definition ---

export interface RegisterToolExample {
  readonly accepted: ArgumentValidationResult;
  readonly rejected: ArgumentValidationResult;
  readonly unknown: ArgumentValidationResult;
  readonly output: Readonly<Record<string, unknown>>;
  readonly digest: string;
}

export async function run(): Promise<RegisterToolExample> {
  // --- register ---
  const registry = new ToolRegistry();
  registry.register(reportTool, reportExecutor); // throws a RegistryError with a stable code

  // Before policy and before execution, check the model's arguments.
  const accepted = registry.validateCall('report.generate', 'v1', { quarter: '2024-Q3' });
  const rejected = registry.validateCall('report.generate', 'v1', { quarter: 'Q3', pages: 4 });
  // rejected.rejection.errors: [{ pointer: '/pages', keyword: 'additionalProperties', ... },
  //                             { pointer: '/quarter', keyword: 'pattern', ... }]
  const unknown = registry.validateCall('report.generate', 'v2', {}); // code 'tool.unknown'

  const { executor } = registry.get('report.generate', 'v1');
  const execution = await executor.execute(
    { signal: new AbortController().signal, heartbeat: () => undefined },
    {
      runId: 'run-1',
      seq: 1,
      tool: 'report.generate',
      version: 'v1',
      args: { quarter: '2024-Q3' },
      idempotencyKey: 'run-1:1',
    },
  );

  // A run pins the tools it may use by digest.
  const { digest } = registry.snapshot(['report.generate@v1']);
  // --- end register ---
  return { accepted, rejected, unknown, output: execution.output, digest };
}
