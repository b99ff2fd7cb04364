import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { providerFromEnv } from '../../../../src/activities/model/provider-from-env.js';

describe('providerFromEnv', () => {
  it('builds each provider', () => {
    expect(
      providerFromEnv({ HARNESS_MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'k', HARNESS_MODEL: 'gpt-x' }).name,
    ).toBe('openai');
    expect(
      providerFromEnv({
        HARNESS_MODEL_PROVIDER: 'anthropic',
        ANTHROPIC_API_KEY: 'k',
        HARNESS_MODEL: 'claude-x',
      }).name,
    ).toBe('anthropic');
    const dir = mkdtempSync(join(tmpdir(), 'env-'));
    const file = join(dir, 's.json');
    writeFileSync(file, JSON.stringify({ entries: [{ response: { text: 'ok' } }] }));
    expect(providerFromEnv({ HARNESS_MODEL_PROVIDER: 'scripted', HARNESS_MODEL_SCRIPT: file }).name).toBe(
      'scripted',
    );
  });

  it('names the missing or bad variable', () => {
    expect(() => providerFromEnv({})).toThrow(/HARNESS_MODEL_PROVIDER is not set/);
    expect(() => providerFromEnv({ HARNESS_MODEL_PROVIDER: 'gemini' })).toThrow(
      /HARNESS_MODEL_PROVIDER="gemini" is not one of/,
    );
    expect(() => providerFromEnv({ HARNESS_MODEL_PROVIDER: 'openai', HARNESS_MODEL: 'm' })).toThrow(
      /OPENAI_API_KEY is not set/,
    );
    expect(() =>
      providerFromEnv({ HARNESS_MODEL_PROVIDER: 'anthropic', HARNESS_MODEL: 'm', ANTHROPIC_API_KEY: ' ' }),
    ).toThrow(/ANTHROPIC_API_KEY is not set/);
    expect(() => providerFromEnv({ HARNESS_MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'k' })).toThrow(
      /HARNESS_MODEL is not set/,
    );
    expect(() => providerFromEnv({ HARNESS_MODEL_PROVIDER: 'scripted' })).toThrow(
      /HARNESS_MODEL_SCRIPT is not set/,
    );
    expect(() =>
      providerFromEnv({
        HARNESS_MODEL_PROVIDER: 'openai',
        OPENAI_API_KEY: 'k',
        HARNESS_MODEL: 'm',
        HARNESS_MODEL_PRICES: '{"r":{"inputUsdPerMTok":-1,"outputUsdPerMTok":1}}',
      }),
    ).toThrow(/HARNESS_MODEL_PRICES at r\.inputUsdPerMTok/);
    expect(() =>
      providerFromEnv({
        HARNESS_MODEL_PROVIDER: 'openai',
        OPENAI_API_KEY: 'k',
        HARNESS_MODEL: 'm',
        HARNESS_MODEL_TIMEOUT_MS: 'soon',
      }),
    ).toThrow(/HARNESS_MODEL_TIMEOUT_MS/);
  });

  it('never puts a key value in an error message', () => {
    try {
      providerFromEnv({
        HARNESS_MODEL_PROVIDER: 'openai',
        OPENAI_API_KEY: 'sk-very-secret',
        HARNESS_MODEL_PRICES: 'nope',
        HARNESS_MODEL: 'm',
      });
      expect.unreachable();
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('sk-very-secret');
      expect((err as { code: string }).code).toBe('model.config_invalid');
    }
  });
});
