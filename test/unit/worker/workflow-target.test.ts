import { describe, expect, it } from 'vitest';
import { WORKFLOW_TARGET, withWorkflowTarget } from '../../../src/worker/bundle.js';

/** The SDK's rules as its bundler writes them (@temporalio/worker lib/workflow/bundler.js), trimmed. */
const sdkConfig = () => ({
  module: {
    rules: [
      { test: /\.js$/, enforce: 'pre', use: ['/x/source-map-loader/index.js'] },
      {
        test: /\.ts$/,
        use: {
          loader: '/x/node_modules/swc-loader/index.js',
          options: { sourceMap: true, jsc: { target: 'es2017', parser: { syntax: 'typescript' } } },
        },
      },
    ],
  },
});

describe('the workflow bundle target (src/worker/bundle.ts)', () => {
  it('compiles the workflow code to ES2022 and leaves the rest of the SDK configuration alone', () => {
    const config = withWorkflowTarget(sdkConfig());
    const rule = config.module.rules[1] as { use: { options: { jsc: Record<string, unknown> } } };
    expect(WORKFLOW_TARGET).toBe('es2022');
    expect(rule.use.options.jsc).toEqual({ target: 'es2022', parser: { syntax: 'typescript' } });
    expect(config.module.rules[0]).toEqual(sdkConfig().module.rules[0]);
  });

  it('refuses a configuration without the swc rule instead of bundling at the slower target', () => {
    expect(() => withWorkflowTarget({ module: { rules: [] } })).toThrow(/no swc-loader rule/);
    expect(() => withWorkflowTarget({})).toThrow(/no swc-loader rule/);
  });
});
