import { afterAll, beforeAll } from 'vitest';
import { OpenAiProvider } from '../../../../../src/activities/model/providers/openai-provider.js';
import type { ModelEvent } from '../../../../../src/activities/model/events.js';
import type { ModelRequest } from '../../../../../src/activities/model/types.js';
import { startFakeServer } from './fake-http-server.js';
import type { FakeServer } from './fake-http-server.js';

/**
 * The shared rig of the OpenAiProvider tests: a local Chat Completions server and a provider
 * pointed at it. `server` and `provider` are live bindings set by the `beforeAll` that
 * `useOpenAiServer()` registers, so they are valid only inside tests and hooks.
 */
export const KEY = 'sk-test-secret-key-123456';
export let server: FakeServer;
export let provider: OpenAiProvider;

/** Starts the fake server and the provider before the file's tests; closes the server after them. */
export function useOpenAiServer(): void {
  beforeAll(async () => {
    server = await startFakeServer();
    provider = new OpenAiProvider({
      baseURL: `${server.origin}/v1`,
      apiKey: KEY,
      model: 'gpt-fake-1',
      prices: { 'support-default@1': { inputUsdPerMTok: 2, outputUsdPerMTok: 8 } },
    });
  });
  afterAll(() => server.close());
}

const tools = [
  {
    name: 'order.read',
    version: 'v1',
    description: 'Read an order',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
  },
  { name: 'logistics.read', version: 'v2', description: 'Read shipping', parameters: { type: 'object' } },
];

export function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    callId: 'call-1',
    purpose: 'decide',
    model: 'support-default@1',
    messages: [
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: 'Where is my order A1?' },
    ],
    tools,
    ...over,
  };
}

export async function run(
  req: ModelRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ events: ModelEvent[]; result: Promise<unknown> }> {
  const events: ModelEvent[] = [];
  const result = provider.stream(req, { signal, onEvent: (e) => events.push(e) });
  await result.catch(() => undefined);
  return { events, result };
}

export const types = (events: ModelEvent[]): string[] => events.map((e) => e.type);
