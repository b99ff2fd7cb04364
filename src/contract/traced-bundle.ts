/**
 * A string that is present in a workflow bundle exactly when it was built with the tracing
 * interceptors (`workflow-interceptors.ts` imports this module; bundles are not minified), so a worker
 * with tracing on can refuse an untraced prebuilt bundle instead of silently losing workflow spans.
 */
export const TRACED_BUNDLE_MARKER = 'agent-harness:traced-workflow-bundle@1';
