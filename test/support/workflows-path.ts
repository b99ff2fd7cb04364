import { fileURLToPath } from 'node:url';

/** The tests' workflow bundle entry (test/support/workflows.ts). */
export const testWorkflowsPath = fileURLToPath(new URL('./workflows.ts', import.meta.url));
