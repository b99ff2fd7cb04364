import type { ToolDefinition, ToolExecutor } from '../../src/index.js';

/** A read tool that only the "next build" of the tests' app registers. */
export const rolloutExtraDefinition: ToolDefinition = {
  name: 'rollout.extra',
  version: 'v1',
  description: 'Rolling-deploy test: a tool only the newer worker has.',
  effect: 'read',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
};

/** A new version of a tool the bench profile does not use (order.read@v1 stays as it was). */
export const orderReadV2Definition: ToolDefinition = {
  name: 'order.read',
  version: 'v2',
  description: 'Rolling-deploy test: the newer worker also serves order.read@v2.',
  effect: 'read',
  parameters: {
    type: 'object',
    properties: { orderId: { type: 'string' } },
    required: ['orderId'],
    additionalProperties: false,
  },
};

/** Both rollout tools answer with an empty object: they are registered, never called. */
export const rolloutExecutor: ToolExecutor = {
  execute: () => Promise.resolve({ output: {} }),
};
