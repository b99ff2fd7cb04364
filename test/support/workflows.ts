// The tests' workflow bundle entry: the same workflows as the benchmark's (every app's profiles, the
// plumbing and bare workflows), bundled once per test run by the global setup.
export { agentRun, bareSteps, plumbingWorkflow } from '../../bench/workflows/index.js';
