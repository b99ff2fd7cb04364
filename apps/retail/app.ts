import { fileURLToPath } from 'node:url';
import type { HarnessApp } from '../../src/index.js';
import { createRetailAppComposition } from './app-composition.js';
import { retailDefinition } from './workflow/definition.js';

/**
 * The retail app (τ²-bench's retail domain, issue 38) for `harness worker --app apps/retail/app.ts`:
 * `retail.agent@v2` and `retail.router@v2` over the database of `RETAIL_DB_URL` (PostgreSQL or SQLite).
 */
export const app: HarnessApp = {
  name: 'retail',
  workflowsPath: fileURLToPath(new URL('./workflow/workflows.ts', import.meta.url)),
  definition: retailDefinition,
  createComposition: (o) => createRetailAppComposition(o),
};
