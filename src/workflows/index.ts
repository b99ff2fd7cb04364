// The workflow bundle's entry point: every workflow type the worker registers.
export { plumbingWorkflow } from './plumbing.js';
