import type { ModelScript } from '../../src/activities/model/scripted-script.js';

/**
 * A scripted model for the data-taint tests: read `notes/creds.txt` with fs.read, then make one
 * call of `tool` with `args` (a write that may carry what was read), then answer "done".
 */
export function readThenCallScript(tool: string, args: Record<string, unknown>): ModelScript {
  return {
    entries: [
      {
        match: { step: 0 },
        response: {
          text: '',
          toolCalls: [{ name: 'fs.read', version: 'v1', args: { path: 'notes/creds.txt' } }],
        },
      },
      { match: { step: 1 }, response: { text: '', toolCalls: [{ name: tool, version: 'v1', args }] } },
      { match: { step: 2 }, response: { text: 'done', toolCalls: [] } },
    ],
    fallback: { text: 'done', toolCalls: [] },
  };
}
