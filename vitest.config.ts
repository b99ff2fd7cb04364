import { configDefaults, defineConfig } from 'vitest/config';

/**
 * True when this vitest process was asked for the `soak` project (`npm run soak`, i.e.
 * `vitest run --project soak`). Only then is that project defined: every defined project runs in a
 * plain `vitest run`, and the soak takes many minutes, so `npm test` must not know it.
 */
function soakRequested(argv: readonly string[] = process.argv): boolean {
  return argv.some((arg, i) => arg === '--project=soak' || (arg === '--project' && argv[i + 1] === 'soak'));
}

const temporalSetup = ['test/setup/system-global.ts', 'test/setup/temporal-global.ts'];

/**
 * Three projects, and a fourth on request:
 * - `unit`: pure code, no server (test/unit, test/apps, and test/security except `*.server.test.ts`).
 * - `temporal`: real dev server shared by the whole run through a global setup (or TEMPORAL_ADDRESS),
 *   forks pool, workflows bundled once (test/workflows, test/e2e).
 * - `realserver`: a real Temporal server v1.29.1 (PostgreSQL persistence and visibility, 4 history
 *   shards, mTLS) started by its own global setup on free loopback ports, after the other projects;
 *   skipped with one line saying why when Go and a cached server build are both missing
 *   (test/realserver, docs/deploy.md).
 * - `soak` (only with `--project soak`): long fault soaks (test/soak/*.soak.ts, docs/durability.md),
 *   with the temporal project's global setups.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/apps/**/*.test.ts', 'test/security/**/*.test.ts'],
          // test/security/**/*.server.test.ts need the dev server: not unit tests
          exclude: [...configDefaults.exclude, 'test/security/**/*.server.test.ts'],
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
            'test/security/**/*.server.test.ts',
          ],
          globalSetup: temporalSetup,
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'realserver',
          include: ['test/realserver/**/*.test.ts'],
          globalSetup: ['test/setup/system-global.ts', 'test/setup/realserver-global.ts'],
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      ...(soakRequested()
        ? [
            {
              test: {
                name: 'soak',
                include: ['test/soak/**/*.soak.ts'],
                globalSetup: temporalSetup,
                pool: 'forks' as const,
                maxWorkers: 1,
                sequence: { groupOrder: 3 },
                testTimeout: 60 * 60_000,
                hookTimeout: 300_000,
              },
            },
          ]
        : []),
    ],
  },
});
