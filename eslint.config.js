// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';

/**
 * Everything that can end up in a workflow bundle: the core, the contract, each app's `workflow/`
 * folder, and the tests' bundle entries. One glob per place; test/unit/docs/sandbox-coverage.test.ts
 * checks that every module of every bundle is covered.
 */
export const SANDBOX_FILES = [
  'src/core/**/*.ts',
  'src/contract/**/*.ts',
  'apps/*/workflow/**/*.ts',
  'bench/workflows/**/*.ts',
  'test/support/workflows.ts',
  'test/support/workflow/**/*.ts',
  'test/**/*-workflow.ts',
  'test/**/*-workflows.ts',
];

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.temporal/**', '.data/**', 'test-artifacts/**', 'coverage/**'] },
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
    // Who may import whom: the core and the contract stand alone, and nothing in src/ names an app.
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/core',
              from: './src',
              except: ['./core', './contract'],
              message: 'The core (workflow sandbox) imports only the core and the contract.',
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
                './core/index.ts',
                './worker/index.ts',
                './client/index.ts',
                './contract/index.ts',
                './service/index.ts',
              ],
              message:
                'Apps import the harness only through its entry points (src/index, core, worker, client, contract, service).',
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
  {
    // The workflow sandbox (and everything bundled into it): deterministic code only. No Node builtins, no value imports of activities
    // or of modules that do I/O; activities are reached through proxyActivities with type-only imports.
    files: SANDBOX_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Node builtins are not allowed in workflow code.',
          })),
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
              // An app's workflow side imports agent-harness/workflow (src/core/index) and the contract.
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
    },
  },
);
