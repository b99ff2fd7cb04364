import { fileURLToPath } from 'node:url';

/** The bench's workflow bundle entry (showcase and bench profiles, the bare arm's workflows). */
export const benchWorkflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
