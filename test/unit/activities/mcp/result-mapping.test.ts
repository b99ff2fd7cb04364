import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../../src/contract/errors.js';
import { mapMcpResult } from '../../../../src/activities/mcp/index.js';

describe('mapMcpResult', () => {
  it('joins text blocks and embedded text resources, and describes other blocks without their data', () => {
    const { output } = mapMcpResult(
      'tool',
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'QUJD'.repeat(1000), mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'embedded' } },
          {
            type: 'resource',
            resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/octet-stream' },
          },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
        ],
      },
      1024,
    );
    expect(output).toEqual({
      text: 'first\nembedded',
      truncated: false,
      textBytes: 14,
      blocks: [
        { type: 'image', mimeType: 'image/png' },
        { type: 'resource', mimeType: 'application/octet-stream', uri: 'file:///b.bin' },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
    });
    expect(JSON.stringify(output)).not.toContain('QUJD');
  });

  it('includes structured content only when it fits in the bytes the text left', () => {
    const small = mapMcpResult(
      'tool',
      { content: [{ type: 'text', text: 'ok' }], structuredContent: { n: 1 } },
      100,
    );
    expect(small.output.structuredContent).toEqual({ n: 1 });
    const large = mapMcpResult(
      'tool',
      { content: [{ type: 'text', text: 'x'.repeat(90) }], structuredContent: { s: 'y'.repeat(20) } },
      100,
    );
    expect(large.output.structuredContent).toBeUndefined();
    expect(large.output.structuredContentOmitted).toBe(true);
  });

  it('cuts at a UTF-8 character boundary', () => {
    const { output } = mapMcpResult('tool', { content: [{ type: 'text', text: '\u4e2d\u6587\u5b57' }] }, 7);
    expect(output.text).toBe('\u4e2d\u6587\n[output truncated: showed 7 of 9 bytes]');
    expect(String(output.text)).not.toContain('\uFFFD');
  });

  it('throws mcp.tool_error for isError results, with bounded text', () => {
    try {
      mapMcpResult('tool', { content: [{ type: 'text', text: 'E'.repeat(5000) }], isError: true }, 100);
      expect.unreachable();
    } catch (err) {
      expect(isHarnessError(err, 'mcp.tool_error')).toBe(true);
      expect(String((err as { details: { text: string } }).details.text)).toHaveLength(2000);
      expect((err as Error).message.length).toBeLessThan(300);
    }
    expect(() => mapMcpResult('tool', { content: [], isError: true }, 100)).toThrow(/no error text/);
  });
});
