import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
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

  it("keeps a user's class fields and decorators as they were at the SDK's ES2017 (define semantics)", () => {
    // The swc the SDK's bundler loads, with the options it passes (lib/workflow/bundler.js), at both
    // targets: a workflow module whose class fields shadow a base class's accessors, a field without an
    // initialiser, a `declare` field, decorators, a private field.
    const swc = createRequire(createRequire(import.meta.url).resolve('@temporalio/worker'))('@swc/core') as {
      transformSync(code: string, options: object): { code: string };
    };
    const module = `
      const seen: string[] = [];
      function mark(_t: any, key: any, desc?: any): any { seen.push(String(key)); return desc; }
      class Base {
        log: unknown[] = [];
        get x(): number { return 1; }
        set x(v: number) { this.log.push(['x', v]); }
        get y(): number { return 10; }
        set y(v: number) { this.log.push(['y', v]); }
        z = 'base';
      }
      class Step extends Base {
        x = 2;
        y!: number;
        declare z: string;
        @mark w?: number;
        #n = 3;
        @mark run(): number { return this.#n; }
      }
      const s = new Step();
      const own = (k: string) => Object.prototype.hasOwnProperty.call(s, k);
      out = { x: s.x, y: s.y === undefined ? 'undefined' : s.y, ownX: own('x'), ownY: own('y'), ownW: own('w'),
        z: s.z, log: s.log, seen, run: s.run() };
    `;
    const evaluate = (target: string, transform: object = {}): unknown => {
      const { code } = swc.transformSync(module, {
        filename: 'workflows.ts',
        jsc: { target, parser: { syntax: 'typescript', decorators: true }, transform },
      });
      // A context of its own, as the workflow sandbox's; its last expression is the result.
      return JSON.parse(JSON.stringify(runInNewContext(`let out; ${code}; out`))) as unknown;
    };
    const defined = {
      x: 2,
      y: 'undefined',
      ownX: true,
      ownY: true,
      ownW: true,
      z: 'base',
      log: [],
      seen: ['w', 'run'],
      run: 3,
    };
    expect(evaluate('es2017')).toEqual(defined);
    expect(evaluate(WORKFLOW_TARGET)).toEqual(defined);
    // The check tells the semantics apart: assigned ([[Set]]) fields call the base setters instead.
    expect(evaluate(WORKFLOW_TARGET, { useDefineForClassFields: false })).toMatchObject({
      x: 1,
      log: [['x', 2]],
      ownX: false,
    });
  });
});
