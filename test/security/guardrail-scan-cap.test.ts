import { describe, expect, it } from 'vitest';
import { taintDigestsOf } from '../../src/workflows/guardrails/data-taint.js';
import {
  GUARDRAIL_MAX_SCAN_CHARS,
  InputReasonCodes,
  OutputReasonCodes,
  checkInput,
  checkOutput,
  inputCheckedEvent,
} from '../../src/workflows/guardrails/index.js';

/**
 * Issue 35: a scan reads at most {@link GUARDRAIL_MAX_SCAN_CHARS} characters of a text and reports
 * the rest as unscanned, never skipping it silently: the input guardrail with an `oversize` finding
 * (in its verdict and its `guardrail.input_checked` event), the output guardrail by blocking, the
 * data-taint scan (worker and workflow) with `unscanned` on its result.
 */

const KEY = 'sk-live-Q3x9ZtP7mWcR2vLk8YhN4bJd';
const fill = (n: number): string => 'x '.repeat(Math.ceil(n / 2)).slice(0, n);

describe('the scan cap', () => {
  it('is 64 KiB', () => {
    expect(GUARDRAIL_MAX_SCAN_CHARS).toBe(64 * 1024);
  });

  it('data taint: a secret within the cap is found and nothing is unscanned', () => {
    const text = `${fill(GUARDRAIL_MAX_SCAN_CHARS - KEY.length - 1)} ${KEY}`;
    expect(text).toHaveLength(GUARDRAIL_MAX_SCAN_CHARS);
    const found = taintDigestsOf({ output: text });
    expect(found.secret).toHaveLength(1);
    expect(found).not.toHaveProperty('unscanned');
  });

  it('data taint: a text past the cap reports its unscanned tail, and the tail is not read', () => {
    const found = taintDigestsOf({ output: `${fill(GUARDRAIL_MAX_SCAN_CHARS)} ${KEY}` });
    expect(found).toEqual({ secret: [], personal: [], unscanned: 'scan_limit' });
  });

  it('data taint: the cap is over all strings of a value, in order', () => {
    const half = fill(GUARDRAIL_MAX_SCAN_CHARS / 2);
    const found = taintDigestsOf({ a: KEY, b: half, c: half, d: KEY.replace('Q3', 'Z9') });
    expect(found.secret).toHaveLength(1);
    expect(found.unscanned).toBe('scan_limit');
  });

  it('data taint: strings past the walk limits are reported too', () => {
    expect(taintDigestsOf({ many: Array.from({ length: 2_001 }, () => 'a') }).unscanned).toBe('strings');
    let deep: unknown = KEY;
    for (let i = 0; i < 40; i += 1) deep = [deep];
    expect(taintDigestsOf(deep)).toEqual({ secret: [], personal: [], unscanned: 'depth' });
  });

  it('input guardrail: the head is scanned, the tail is an oversize finding in the verdict and the event', () => {
    const text = `${KEY} ${fill(GUARDRAIL_MAX_SCAN_CHARS)} ${KEY.replace('Q3', 'Z9')}`;
    const result = checkInput({ message: text }, { maxStringChars: GUARDRAIL_MAX_SCAN_CHARS });
    expect(result.verdict).toBe('block');
    expect(result.findings).toEqual([
      {
        code: InputReasonCodes.oversize,
        ruleId: 'oversize.string_chars',
        path: '/message',
        action: 'block',
      },
      {
        code: InputReasonCodes.secret,
        ruleId: 'secret.openai_style_key',
        path: '/message',
        span: { start: 0, end: KEY.length },
        action: 'block',
      },
    ]);
    const event = inputCheckedEvent('task', result);
    expect(event.data.reasonCodes).toContain(InputReasonCodes.oversize);
    expect(JSON.stringify(event.data)).not.toContain(KEY);
  });

  it('output guardrail: a response past the cap is blocked whole', () => {
    const result = checkOutput({
      output: { message: `${fill(GUARDRAIL_MAX_SCAN_CHARS)} done` },
      artifacts: [],
      invocations: [],
    });
    expect(result).toMatchObject({
      verdict: 'block',
      output: null,
      reasonCodes: [OutputReasonCodes.oversize],
    });
    expect(result.findings[0]).toMatchObject({ ruleId: 'oversize.total_chars', path: '/message' });
  });
});
