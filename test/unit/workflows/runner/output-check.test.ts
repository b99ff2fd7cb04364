import { describe, expect, it } from 'vitest';
import { decision, fakeRun } from './fake-run.js';

const outputSchema = {
  type: 'object',
  properties: { domain: { type: 'string', enum: ['orders', 'returns'] } },
  required: ['domain'],
};

describe("ModelRequest.outputCheck 'caller'", () => {
  it('goes into the model activity input only when asked; the caller gets the text as the model wrote it', async () => {
    const run = fakeRun({
      model: () => decision({ text: '{"domain":"weather"}' }),
      run: async (ctx) => {
        const messages = [{ role: 'user' as const, content: 'route me' }];
        await ctx.model('route', { messages, outputSchema });
        const asked = await ctx.model('route', { messages, outputSchema, outputCheck: 'caller' });
        return { output: asked.text };
      },
    });
    const final = await run.execute();
    expect(final.output).toBe('{"domain":"weather"}');
    const [plain, asked] = run.ports.modelCalls;
    // A call that does not ask has no such key: its input is as it was before the field existed.
    expect(Object.keys(plain!)).not.toContain('outputCheck');
    expect(plain!.outputSchema).toEqual(outputSchema);
    expect(asked).toMatchObject({ outputSchema, outputCheck: 'caller' });
  });
});
