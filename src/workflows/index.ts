// The workflow bundle's entry point: every workflow type the worker registers.
import './sandbox-zod.js';
export { agentRun } from './agent-run.js';
export { plumbingWorkflow } from './plumbing.js';
export { bareSteps } from './bare-steps.js';
