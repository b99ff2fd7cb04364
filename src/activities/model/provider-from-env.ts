import { ModelError } from './errors.js';
import { PriceTableSchema, ZERO_PRICES } from './pricing.js';
import { AnthropicProvider } from './providers/anthropic-provider.js';
import { OpenAiProvider } from './providers/openai-provider.js';
import { ScriptedProvider } from './scripted-provider.js';
import { loadModelScriptFile } from './scripted-script.js';
import type { PriceTable } from './pricing.js';
import type { ModelProvider } from './types.js';

export type ModelEnv = Readonly<Record<string, string | undefined>>;

function configError(message: string, variable: string): ModelError {
  return new ModelError('model.config_invalid', message, { details: { variable } });
}

function required(env: ModelEnv, name: string, why: string): string {
  const v = env[name]?.trim();
  if (!v) throw configError(`${name} is not set: ${why}`, name);
  return v;
}

function prices(env: ModelEnv): PriceTable {
  const raw = env.HARNESS_MODEL_PRICES?.trim();
  if (!raw) return ZERO_PRICES;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw configError(
      'HARNESS_MODEL_PRICES is not JSON (expected {"<route>": {"inputUsdPerMTok": n, "outputUsdPerMTok": n}})',
      'HARNESS_MODEL_PRICES',
    );
  }
  const parsed = PriceTableSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw configError(
      `HARNESS_MODEL_PRICES at ${issue?.path.join('.') ?? '(root)'}: ${issue?.message ?? 'invalid'}`,
      'HARNESS_MODEL_PRICES',
    );
  }
  return parsed.data;
}

function timeoutMs(env: ModelEnv): { timeoutMs?: number } {
  const raw = env.HARNESS_MODEL_TIMEOUT_MS?.trim();
  if (!raw) return {};
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw configError(
      'HARNESS_MODEL_TIMEOUT_MS must be a positive integer (milliseconds)',
      'HARNESS_MODEL_TIMEOUT_MS',
    );
  return { timeoutMs: n };
}

/**
 * Builds the worker's model provider from the environment (see docs/models.md):
 * `HARNESS_MODEL_PROVIDER` = `openai` | `anthropic` | `scripted`; `HARNESS_MODEL`; `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY`; `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`; `HARNESS_MODEL_SCRIPT`;
 * optional `HARNESS_MODEL_PRICES` and `HARNESS_MODEL_TIMEOUT_MS`. Throws `model.config_invalid`
 * naming the missing or bad variable; never includes a key's value in a message.
 */
export function providerFromEnv(env: ModelEnv = process.env): ModelProvider {
  const kind = env.HARNESS_MODEL_PROVIDER?.trim();
  switch (kind) {
    case 'openai':
      return new OpenAiProvider({
        baseURL: env.OPENAI_BASE_URL?.trim() || 'https://api.openai.com/v1',
        apiKey: required(
          env,
          'OPENAI_API_KEY',
          'the openai provider needs an API key (any non-empty value for servers without auth)',
        ),
        model: required(env, 'HARNESS_MODEL', 'name the provider model, e.g. gpt-4.1-mini'),
        prices: prices(env),
        ...timeoutMs(env),
      });
    case 'anthropic':
      return new AnthropicProvider({
        baseURL: env.ANTHROPIC_BASE_URL?.trim() || 'https://api.anthropic.com',
        apiKey: required(env, 'ANTHROPIC_API_KEY', 'the anthropic provider needs an API key'),
        model: required(env, 'HARNESS_MODEL', 'name the provider model, e.g. claude-sonnet-4-5'),
        prices: prices(env),
        ...timeoutMs(env),
      });
    case 'scripted':
      return new ScriptedProvider(
        loadModelScriptFile(
          required(env, 'HARNESS_MODEL_SCRIPT', 'the scripted provider needs a JSON script file'),
        ),
        prices(env),
      );
    case undefined:
    case '':
      throw configError(
        'HARNESS_MODEL_PROVIDER is not set: choose openai, anthropic or scripted',
        'HARNESS_MODEL_PROVIDER',
      );
    default:
      throw configError(
        `HARNESS_MODEL_PROVIDER=${JSON.stringify(kind.slice(0, 40))} is not one of openai, anthropic, scripted`,
        'HARNESS_MODEL_PROVIDER',
      );
  }
}
