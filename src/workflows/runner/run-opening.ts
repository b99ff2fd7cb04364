import type { PolicySubject } from '../policy/index.js';
import type { RunCore } from './run-core.js';
import type { RunnerOptions } from './runner-options.js';

/**
 * Open a freshly created run: `run.created` (its versions, model routes and bundles), the moves to
 * `queued` and `running`, `run.started` (who it is for) and the first `checkpoint.saved`.
 * Failure semantics: throws only what `RunCore.transition` throws for a state that is not `created`.
 */
export function openRun(
  core: RunCore,
  options: Pick<RunnerOptions, 'modelRoutes' | 'bundles'>,
  subject: PolicySubject | undefined,
): void {
  const routes = options.modelRoutes;
  const bundles = options.bundles;
  core.emit('run.created', {
    versions: core.state.versions,
    ...(routes ? { modelRoutes: routes } : {}),
    ...(bundles ? { bundles } : {}),
  });
  core.transition('queued');
  core.transition('running');
  core.emit('run.started', { ...subject });
  core.emit('checkpoint.saved', { reason: 'run_created', stateVersion: core.state.stateVersion });
}
