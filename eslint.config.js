// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Everything that can end up in a workflow bundle: the workflow side, the registry, the contract, each
 * app's `workflow/` folder, and the tests' bundle entries. One glob per place;
 * test/unit/docs/sandbox-coverage.test.ts checks that every module of every bundle is covered.
 */
export const SANDBOX_FILES = [
  'src/workflows/**/*.ts',
  'src/registry/**/*.ts',
  'src/contract/**/*.ts',
  'apps/*/workflow/**/*.ts',
  'bench/workflows/**/*.ts',
  'test/support/workflows.ts',
  'test/support/workflow/**/*.ts',
  'test/**/*-workflow.ts',
  'test/**/*-workflows.ts',
];

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * The workflow sandbox (and everything bundled into it): deterministic code only. No Node builtins, no
 * value imports of activities or of modules that do I/O; activities are reached through
 * proxyActivities with type-only imports. Inside src/, only src/workflows/temporal/ imports
 * `@temporalio/workflow` (the rest of the workflow side is plain deterministic TypeScript).
 */
function sandboxRules(extraPaths = []) {
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: [
          ...nodeBuiltins.map((name) => ({
            name,
            message: 'Node builtins are not allowed in workflow code.',
          })),
          ...extraPaths,
        ],
        patterns: [
          {
            group: [
              '**/activities/**',
              '**/activities',
              '**/store/**',
              '**/model/providers/**',
              '**/devserver/**',
              '**/cli/**',
            ],
            allowTypeImports: true,
            message: 'Workflow code may import activities and I/O modules as types only.',
          },
          {
            // An app's workflow side imports agent-harness/workflow (src/workflows/index) and the contract.
            group: ['**/src/index.js', '**/src/worker/**', '**/src/client/**'],
            allowTypeImports: true,
            message:
              'Workflow code imports the worker and client sides (and the package root) as types only.',
          },
        ],
      },
    ],
    'no-restricted-globals': [
      'error',
      { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
      { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
      { name: 'process', message: 'No process access in workflow code.' },
    ],
  };
}

/** Files inside src/ that may not name Temporal's workflow API: all sandbox code but the binding. */
const UNBOUND_SANDBOX_FILES = ['src/workflows/**/*.ts', 'src/registry/**/*.ts', 'src/contract/**/*.ts'];

function sandboxConfigs() {
  return [
    { files: SANDBOX_FILES, rules: sandboxRules() },
    {
      files: UNBOUND_SANDBOX_FILES,
      ignores: ['src/workflows/temporal/**', 'src/workflows/index.ts'],
      rules: sandboxRules([
        {
          name: '@temporalio/workflow',
          allowTypeImports: true,
          message: 'Only src/workflows/temporal/ (the Temporal binding) imports @temporalio/workflow.',
        },
      ]),
    },
  ];
}

/**
 * Size held by lint: files of at most 400 lines (every line counts) and functions of at most 120 (code
 * lines). The files over either limit when it came in are listed with their size in
 * size-allowlist.json; each gets its own limit raised to its recorded size, and
 * test/unit/docs/size-allowlist.test.ts holds the list to "may only shrink".
 */
const SIZE_ALLOWLIST =
  /** @type {{ limits: { 'max-lines': number, 'max-lines-per-function': number }, files: Record<string, { lines?: number, functions?: Record<string, number> }> }} */ (
    JSON.parse(readFileSync(join(import.meta.dirname, 'size-allowlist.json'), 'utf8'))
  );

/** @param {number} maxLines @param {number} maxFunctionLines */
function sizeRules(maxLines, maxFunctionLines) {
  return {
    'max-lines': ['error', { max: maxLines, skipBlankLines: false, skipComments: false }],
    'max-lines-per-function': ['error', { max: maxFunctionLines, skipBlankLines: true, skipComments: true }],
  };
}

function sizeConfigs() {
  const limits = SIZE_ALLOWLIST.limits;
  return [
    {
      files: ['src/**/*.ts'],
      rules: sizeRules(limits['max-lines'], limits['max-lines-per-function']),
    },
    ...Object.entries(SIZE_ALLOWLIST.files).map(([file, size]) => ({
      files: [file],
      rules: sizeRules(
        Math.max(limits['max-lines'], size.lines ?? 0),
        Math.max(limits['max-lines-per-function'], ...Object.values(size.functions ?? {})),
      ),
    })),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.temporal/**',
      '.data/**',
      'test-artifacts/**',
      'coverage/**',
      // An outside team's app (plain .mjs): it runs only inside a project that installed the packed
      // tarball (test/e2e/outside-app.test.ts), where `agent-harness` resolves.
      'test/fixtures/outside-app/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver': { typescript: { project: './tsconfig.json' } },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { maxDepth: 10 }],
    },
  },
  {
    // Who may import whom (README "Layout"): rooms by where code runs; the sides meet only through the
    // contract and the workflow side's entry; nothing imports upward.
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/workflows',
              from: './src',
              except: ['./workflows', './registry', './contract'],
              message: 'The workflow sandbox imports only itself, the registry and the contract.',
            },
            {
              target: './src/registry',
              from: './src',
              except: ['./registry', './contract'],
              message: 'The registry (sandbox-safe) imports only itself and the contract.',
            },
            {
              target: './src/contract',
              from: './src',
              except: ['./contract'],
              message: 'The contract imports only the contract.',
            },
            {
              target: './src/codec',
              from: './src',
              except: ['./codec', './contract'],
              message:
                'The payload codec imports only itself and the contract, so clients and workers both use it without the other side.',
            },
            {
              target: './src/devserver',
              from: './src',
              except: ['./devserver', './contract'],
              message: 'The dev server manager imports only itself and the contract.',
            },
            {
              target: [
                './src/activities',
                './src/worker',
                './src/client',
                './src/service',
                './src/cli',
                './src/codec',
                './src/devserver',
                './src/index.ts',
              ],
              from: './src/workflows',
              except: ['./index.ts'],
              message:
                'Outside the sandbox, import the workflow side only through its entry (src/workflows/index.ts).',
            },
            {
              target: './src/activities',
              from: ['./src/worker', './src/client', './src/service', './src/cli'],
              message:
                'Activities stand below the worker, the client, the service and the CLI: no upward import.',
            },
            {
              target: './src/worker',
              from: ['./src/client', './src/service', './src/cli'],
              message:
                'The worker composes activities and workflows; it does not import the client, service or CLI.',
            },
            {
              target: './src/client',
              from: './src/activities',
              // The seed metrics (client/metrics) re-render stored context packages to count what a
              // model saw: pure rendering, no store driver (test/unit/entries/entry-loads.test.ts).
              except: ['./context'],
              message:
                'The client needs only a Temporal connection: no activities (they load the SQL store) but the context renderer.',
            },
            {
              target: './src/client',
              from: ['./src/worker', './src/service', './src/cli'],
              message:
                'The client needs only a Temporal connection: no activities (they load the SQL store), worker, service or CLI.',
            },
            {
              target: './src/service',
              from: ['./src/cli'],
              message: 'The CLI stands above the service, not below it.',
            },
            { target: './src', from: './apps', message: 'Nothing in src/ names an app.' },
          ],
        },
      ],
    },
  },
  {
    // Apps are built as an outside team would build them: on the package's entry points only.
    files: ['apps/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './apps',
              from: './src',
              except: [
                './index.ts',
                './workflows/index.ts',
                './worker/index.ts',
                './client/index.ts',
                './contract/index.ts',
                './service/index.ts',
              ],
              message:
                'Apps import the harness only through its entry points (src/index, workflows, worker, client, contract, service).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  ...sandboxConfigs(),
  ...sizeConfigs(),
);
