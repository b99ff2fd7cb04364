/**
 * Browser JavaScript shared by the service's pages (the inbox, the run page): `sseFrames(res, onFrame)`
 * reads a `text/event-stream` response frame by frame and calls `onFrame({ id, event, data })` for each
 * (`id` null when the frame has none, `event` `message` by default, `data` its data lines joined); it
 * returns when the stream ends or `onFrame` returns true. Read errors propagate to the caller (who
 * reconnects with Last-Event-ID). Plain script text, no backticks (it is embedded in template literals).
 */
export const SSE_FRAMES_JS = `
  async function sseFrames(res, onFrame) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let cut;
      while ((cut = buf.indexOf('\\n\\n')) >= 0) {
        const block = buf.slice(0, cut); buf = buf.slice(cut + 2);
        const frame = { id: null, event: 'message', data: '' };
        const data = [];
        for (const line of block.split('\\n')) {
          if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('event: ')) frame.event = line.slice(7);
          else if (line.startsWith('data:')) data.push(line.slice(5));
        }
        frame.data = data.join('\\n');
        if (onFrame(frame) === true) { reader.cancel().catch(() => {}); return; }
      }
    }
  }
`;
