/** One Server-Sent Event as a client sees it (comments and heartbeats are skipped). */
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/**
 * The events of an SSE response body, in order, as they arrive. Ends when the body ends; a consumer
 * that stops early should abort the request (the body is not cancelled here).
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let id: string | undefined;
        let event = 'message';
        let data = '';
        let hasData = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = v;
          else if (field === 'event') event = v;
          else if (field === 'data') {
            data += (hasData ? '\n' : '') + v;
            hasData = true;
          }
        }
        if (hasData) yield id === undefined ? { event, data } : { id, event, data };
      }
    }
  } finally {
    reader.releaseLock();
  }
}
