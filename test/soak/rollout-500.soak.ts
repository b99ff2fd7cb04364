/**
 * Issue 19's done-when rollout, in the soak project (`npm run soak`): the control-plane bundle tests
 * of `test/workflows/control-plane-bundles.test.ts` (which `npm test` runs with 60 real runs) with all
 * 500 runs of the 20 % rollout through the real workflow, counted from their `run.created` pins.
 */
process.env.BUNDLES_REAL_RUNS ??= '500';
await import('../workflows/control-plane-bundles.test.js');
