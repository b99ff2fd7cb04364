import { describe, expect, it } from 'vitest';
import { OpenStreams } from '../../../src/service/open-streams.js';

/** The service's open event streams (src/service/open-streams.ts): ended together, without a shared signal. */
describe('open streams', () => {
  it('aborts every open stream at close, and a stream opened after it at once, with no leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const streams = new OpenStreams();
      const open = Array.from({ length: 50 }, () => streams.open());
      open[0]!.abort();
      open[1]!.release();
      expect(open[0]!.signal.aborted).toBe(true);
      expect(open[2]!.signal.aborted).toBe(false);
      expect(streams.size).toBe(49);
      streams.closeAll();
      expect(open.slice(2).every((s) => s.signal.aborted)).toBe(true);
      expect(open[1]!.signal.aborted).toBe(false); // released before the close: not ours any more
      expect(streams.open().signal.aborted).toBe(true);
      expect(streams.size).toBe(0);
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
