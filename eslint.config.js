// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';

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
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The workflow sandbox (and everything bundled into it): deterministic code only. No Node builtins, no value imports of activities
    // or of modules that do I/O; activities are reached through proxyActivities with type-only imports.
    files: [
      'src/core/workflow/**/*.ts',
      'src/core/runner/**/*.ts',
      'src/core/policy/**/*.ts',
      'src/core/completion/**/*.ts',
      'src/contract/**/*.ts',
      'apps/refund/graph/**/*.ts',
      'src/core/guardrails/**/*.ts',
      'src/core/migration/**/*.ts',
      'apps/refund/refund-policy.ts',
      'src/core/tools/sandbox.ts',
      'src/core/tools/argument-validator.ts',
      'src/core/tools/canonical-json.ts',
      'src/core/tools/named-registry.ts',
      'src/core/tools/schema-subset.ts',
      'src/core/tools/tool-definition.ts',
      'src/core/tools/tool-identity.ts',
      'src/core/tools/formats.ts',
      'src/core/tools/errors.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Node builtins are not allowed in workflow code.' })),
          patterns: [
            {
              group: ['**/activities/**', '**/activities', '**/store/**', '**/model/providers/**', '**/devserver/**', '**/cli/**'],
              allowTypeImports: true,
              message: 'Workflow code may import activities and I/O modules as types only.',
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
