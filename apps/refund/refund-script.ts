import type { ModelScript } from '../../src/index.js';

/**
 * The scripted stand-in model for the refund examples (offline default). It is not a model: it
 * answers the refund graph's routing question and plays a fixed tool sequence for the goal profile.
 */
export const REFUND_SCRIPT: ModelScript = {
  entries: [
    {
      match: { purpose: 'route' },
      response: { text: 'refund', toolCalls: [], usage: { inputTokens: 40, outputTokens: 1 } },
    },
  ],
  fallback: {
    text: 'I can only help with refunds.',
    toolCalls: [],
    usage: { inputTokens: 20, outputTokens: 8 },
  },
};
