import { isAbsolute, resolve } from 'node:path';
import { HarnessError } from '../contract/errors.js';

/**
 * Whether and where a process exports OpenTelemetry spans:
 * - `off`: no tracing at all (no interceptors, no sinks, the untraced workflow bundle);
 * - `console`: spans printed to stdout by the SDK's console exporter;
 * - `jsonl`: one JSON object per finished span appended to `file` (see `JsonLinesSpanExporter`).
 */
export type TracingConfig =
  { readonly mode: 'off' } | { readonly mode: 'console' } | { readonly mode: 'jsonl'; readonly file: string };

const OFF = new Set(['', '0', 'off', 'false', 'no', 'none']);
const CONSOLE = new Set(['1', 'on', 'true', 'yes', 'console']);

/**
 * Read `HARNESS_OTEL` (`off` by default; `on`/`1`/`console`; `jsonl`) and `HARNESS_OTEL_FILE` (required
 * with `jsonl`, relative paths resolve against `cwd`).
 * @throws HarnessError `telemetry.invalid_config` naming the variable and the accepted values when a
 *   value is unknown, `jsonl` has no file, or a file is given while tracing does not write one.
 */
export function tracingConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): TracingConfig {
  const raw = env.HARNESS_OTEL ?? '';
  const value = raw.trim().toLowerCase();
  const file = env.HARNESS_OTEL_FILE?.trim() ?? '';
  const invalid = (message: string): HarnessError =>
    new HarnessError('telemetry.invalid_config', message, { HARNESS_OTEL: raw, HARNESS_OTEL_FILE: file });
  if (value === 'jsonl') {
    if (!file)
      throw invalid('HARNESS_OTEL=jsonl needs HARNESS_OTEL_FILE (the JSON-lines file spans are appended to)');
    return { mode: 'jsonl', file: isAbsolute(file) ? file : resolve(cwd, file) };
  }
  let config: TracingConfig;
  if (OFF.has(value)) config = { mode: 'off' };
  else if (CONSOLE.has(value)) config = { mode: 'console' };
  else
    throw invalid(
      `HARNESS_OTEL=${JSON.stringify(raw)} is not understood; use off (default), on|console, or jsonl with HARNESS_OTEL_FILE`,
    );
  if (file)
    throw invalid(
      `HARNESS_OTEL_FILE is set but HARNESS_OTEL=${JSON.stringify(raw)} does not write a file; set HARNESS_OTEL=jsonl`,
    );
  return config;
}
