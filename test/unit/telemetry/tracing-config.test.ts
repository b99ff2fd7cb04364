import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import { tracingConfigFromEnv } from '../../../src/telemetry/tracing-config.js';
import { tracingFromEnv } from '../../../src/telemetry/tracing.js';

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (isHarnessError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a HarnessError');
}

describe('tracingConfigFromEnv', () => {
  it('is off when unset, empty or an off word', () => {
    for (const v of [undefined, '', '0', 'off', 'OFF', 'false', 'none', ' no ']) {
      expect(tracingConfigFromEnv({ HARNESS_OTEL: v })).toEqual({ mode: 'off' });
    }
  });

  it('on words mean the console exporter', () => {
    for (const v of ['1', 'on', 'true', 'yes', 'Console']) {
      expect(tracingConfigFromEnv({ HARNESS_OTEL: v })).toEqual({ mode: 'console' });
    }
  });

  it('jsonl writes to HARNESS_OTEL_FILE, relative paths against cwd', () => {
    expect(tracingConfigFromEnv({ HARNESS_OTEL: 'jsonl', HARNESS_OTEL_FILE: '/tmp/s.jsonl' }, '/x')).toEqual({
      mode: 'jsonl',
      file: '/tmp/s.jsonl',
    });
    expect(
      tracingConfigFromEnv({ HARNESS_OTEL: 'jsonl', HARNESS_OTEL_FILE: 'spans.jsonl' }, '/srv/h'),
    ).toEqual({
      mode: 'jsonl',
      file: '/srv/h/spans.jsonl',
    });
  });

  it('an unknown value is a clear error naming the variable and the accepted values', () => {
    const e = errorOf(() => tracingConfigFromEnv({ HARNESS_OTEL: 'otlp' }));
    expect(e.code).toBe('telemetry.invalid_config');
    expect(e.message).toContain('HARNESS_OTEL="otlp"');
    expect(e.message).toContain('off (default), on|console, or jsonl');
  });

  it('jsonl without a file, or a file without jsonl, is an error', () => {
    expect(errorOf(() => tracingConfigFromEnv({ HARNESS_OTEL: 'jsonl' })).message).toContain(
      'needs HARNESS_OTEL_FILE',
    );
    expect(errorOf(() => tracingConfigFromEnv({ HARNESS_OTEL: 'jsonl', HARNESS_OTEL_FILE: '  ' })).code).toBe(
      'telemetry.invalid_config',
    );
    expect(errorOf(() => tracingConfigFromEnv({ HARNESS_OTEL_FILE: '/tmp/s.jsonl' })).message).toContain(
      'set HARNESS_OTEL=jsonl',
    );
  });

  it('tracingFromEnv gives nothing when off and throws on a bad value', () => {
    expect(tracingFromEnv('w', {})).toBeUndefined();
    expect(() => tracingFromEnv('w', { HARNESS_OTEL: 'maybe' })).toThrow(/HARNESS_OTEL/);
  });
});
