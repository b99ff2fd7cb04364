import type { CompositionExtension } from '../../apps/refund/composition.js';
import { refundSettings } from '../../apps/refund/settings.js';
import { benchScripts } from '../../apps/bench/bench-script.js';
import {
  benchNoopDefinition,
  benchNoopExecutor,
  registerBenchTools,
} from '../../apps/bench/bench-noop-tool.js';
import { testBundleDefinition } from './workflow/test-bundle-definition.js';
import { app as showcase } from '../../apps/showcase/app.js';
import { createShowcaseComposition } from '../../apps/showcase/composition.js';
import type { HarnessApp } from '../../src/worker/index.js';
import { orderReadV2Definition, rolloutExecutor, rolloutExtraDefinition } from './rollout-tools.js';
import { refundDrillsFromEnv } from './refund-drills.js';
import { pinnedRouteFromEnv } from './pinned-route.js';
import { TEST_PRINCIPALS } from './principals.js';
import { FAST_DRILL_SCRIPTS, registerFastDrillTools } from './fast-drill-tools.js';
import { retailTestTools } from './retail-test-tools.js';
import { testWorkflowsPath } from './workflows-path.js';

/** Bench runs the tests' worker processes can serve (scripted routes `scripted/bench-<n>`). */
export const TEST_APP_BENCH_SIZES = [40];

/**
 * The tool set of a worker process, by `HARNESS_TEST_TOOLS`:
 * - unset: the showcase's tools and `bench.noop@v1`;
 * - `rollout`: the next build, with `rollout.extra@v1` and `order.read@v2` as well;
 * - `changed-bench`: `bench.noop@v1` with another definition (a worker that must not serve bench runs);
 * - `fast-drill`: the fast-path drills' slow fast reads as well (`bench.fast_noop@v2`, `@v3`).
 */
function toolsFor(mode: string | undefined): CompositionExtension[] {
  const extend: CompositionExtension[] = [];
  if (mode === 'changed-bench') {
    extend.push((registry) =>
      registry.register(
        { ...benchNoopDefinition, description: 'Changed without a new version.' },
        benchNoopExecutor,
      ),
    );
  } else {
    extend.push((registry) => registerBenchTools(registry));
  }
  if (mode === 'fast-drill') extend.push((registry) => registerFastDrillTools(registry));
  if (mode === 'rollout') {
    extend.push((registry) => {
      registry.register(rolloutExtraDefinition, rolloutExecutor);
      registry.register(orderReadV2Definition, rolloutExecutor);
    });
  }
  return extend;
}

/**
 * The tests' app: the showcase plus the bench profile and tool, on the tests' workflow bundle entry.
 * CLI and worker processes started by tests load it (HARNESS_APP), so their compositions match the
 * in-process test fixtures.
 */
export const app: HarnessApp = {
  ...showcase,
  name: 'test',
  workflowsPath: testWorkflowsPath,
  definition: testBundleDefinition,
  createComposition: (o) =>
    createShowcaseComposition({
      ...o,
      refundStorePath: refundSettings(o.env).refundStorePath,
      scripts: { ...benchScripts(TEST_APP_BENCH_SIZES), ...FAST_DRILL_SCRIPTS },
      extend: [
        ...toolsFor((o.env ?? process.env).HARNESS_TEST_TOOLS),
        ...retailTestTools(o.env ?? process.env),
        ...pinnedRouteFromEnv(o.env ?? process.env),
      ],
      drills: refundDrillsFromEnv(o.env ?? process.env),
      principals: o.principals ?? TEST_PRINCIPALS,
    }),
};
