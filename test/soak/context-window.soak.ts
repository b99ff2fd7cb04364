/**
 * Issue 19's done-when run of the context window, in the soak project (`npm run soak`): the same test
 * as `test/workflows/context-window.test.ts` (which `npm test` runs with 80 steps), with 1,000 steps
 * unless CONTEXT_WINDOW_STEPS says otherwise. About 10 minutes on a 2-core machine.
 */
process.env.CONTEXT_WINDOW_STEPS ??= '1000';
await import('../workflows/context-window.test.js');
