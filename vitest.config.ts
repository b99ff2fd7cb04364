import { defineConfig } from 'vitest/config';

/**
 * Two projects:
 * - `unit`: pure code, no server (test/unit).
 * - `temporal`: real dev server shared by the whole run through a global setup (or TEMPORAL_ADDRESS),
 *   forks pool, workflows bundled once (test/workflows, test/e2e).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          globalSetup: ['test/setup/system-global.ts'],
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'temporal',
          include: [
            'test/workflows/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/replay/**/*.test.ts',
            'test/faults/**/*.test.ts',
          ],
          globalSetup: ['test/setup/system-global.ts', 'test/setup/temporal-global.ts'],
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
