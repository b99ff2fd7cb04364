import { describe, expect, it, vi } from 'vitest';
import { createOutput } from '../../../src/cli/output.js';
import { printable, printableBlock } from '../../../src/cli/printable.js';

describe('text printed on a terminal (src/cli/printable.ts)', () => {
  it('writes every control character of a field as \\uXXXX: escapes, line breaks, bidi overrides', () => {
    expect(printable('run-1\u001b[2J\nPASS  forged')).toBe('run-1\\u001b[2J\\u000aPASS  forged');
    expect(printable('a\rb\tc\u0000d\u007fe\u009bf')).toBe('a\\u000db\\u0009c\\u0000d\\u007fe\\u009bf');
    expect(printable('abc\u202edef\u2066\u2028')).toBe('abc\\u202edef\\u2066\\u2028');
    // Printable text, including other scripts and emoji, is left as it is.
    expect(printable('Zoë 退款 ✓ 😀 "quoted" \\ back')).toBe('Zoë 退款 ✓ 😀 "quoted" \\ back');
  });

  it('keeps the line feeds and tabs of a block, and escapes the rest', () => {
    expect(printableBlock('PASS\tchain\nFAIL\u001b[31m red')).toBe('PASS\tchain\nFAIL\\u001b[31m red');
  });

  it('every readable line and progress line goes through it; --json output is JSON as it is', () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      createOutput(false).line('model said \u001b]0;title\u0007 ok\nnext');
      createOutput(false).progress('step \u001b[1A');
      createOutput(true).data({ text: '\u001b' });
      expect(out.mock.calls.map((c) => c[0])).toEqual([
        'model said \\u001b]0;title\\u0007 ok\nnext\n',
        '{"text":"\\u001b"}\n',
      ]);
      expect(err.mock.calls.map((c) => c[0])).toEqual(['step \\u001b[1A\n']);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});
