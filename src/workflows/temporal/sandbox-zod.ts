import { inWorkflowContext } from '@temporalio/workflow';
import { config } from 'zod';

/**
 * Zod inside the workflow sandbox runs jitless. Every workflow run evaluates the bundle's modules
 * again (its own module cache), so every schema is a new instance and zod's JIT would generate and
 * compile a fast path for each object schema on its first parse in every run: more CPU than the
 * parse it speeds up. Jitless parsing gives the same results. Imported first by the core's entry, so
 * it applies before any module-level parse. Only inside the sandbox (the SDK sets the workflow
 * context before it evaluates the bundle): a worker or client process that imports
 * `agent-harness/workflow` for an app's definition keeps zod's JIT. A bundle from `bundleWorkflows`
 * preloads zod with this setting already made and its config frozen (preloaded-zod.ts): then there
 * is nothing to set.
 */
if (inWorkflowContext() && !config().jitless) config({ jitless: true });
