import type { ModelScript } from '../../src/activities/model/scripted-script.js';

/** A model that reads the same order on every call: a goal run that never ends by itself. */
export const ENDLESS_READS: ModelScript = {
  entries: [],
  fallback: {
    text: '',
    toolCalls: [{ name: 'order.read', version: 'v1', args: { orderId: 'ORD-1001' } }],
    usage: { inputTokens: 10, outputTokens: 5 },
  },
};
