import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

let installed = false;

/**
 * Install the worker runtime once per process with a quiet logger (default WARN; set
 * HARNESS_LOG_LEVEL=INFO or DEBUG for more). Later calls do nothing.
 */
export function installWorkerRuntime(): void {
  if (installed) return;
  installed = true;
  const level = (process.env.HARNESS_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  Runtime.install({ logger: new DefaultLogger(level) });
}
