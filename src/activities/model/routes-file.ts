import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import {
  FastModelRouteSchema,
  MAX_FALLBACKS,
  ModelFallbackSchema,
  ModelRouteKeySchema,
  RoutePurposesSchema,
} from '../../contract/model-routes.js';
import { ModelError } from './errors.js';
import { ModelPriceSchema } from './pricing.js';

const EnvName = z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/, 'expected an environment variable name');

/**
 * One version of a model route in a routes file. `baseUrl`, `apiKeyEnv` and `script` say where and
 * how a worker reaches the model; everything else is what the version is (and goes into its digest).
 */
export const RouteVersionSchema = z
  .strictObject({
    provider: z.enum(['openai', 'anthropic', 'scripted']),
    /** The provider's model name (`gpt-4.1-mini`, `claude-sonnet-4-5`; any name for `scripted`). */
    model: z.string().min(1).max(200),
    /** Default: the provider's public API. */
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** The environment variable holding the API key (openai, anthropic). Never the key itself. */
    apiKeyEnv: EnvName.optional(),
    /** `scripted`: the script file, relative to the routes file. */
    script: z.string().min(1).optional(),
    /** Tokens the model reads and writes in one call. */
    contextWindow: z.number().int().positive().max(10_000_000),
    maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
    /**
     * How the context builder counts this route's tokens (docs/context.md). Default: by provider and
     * model (`o200k_base` for current OpenAI models and `scripted`, else the conservative `estimate`).
     */
    tokenizer: z.enum(['o200k_base', 'cl100k_base', 'estimate']).optional(),
    prices: ModelPriceSchema,
    timeouts: z
      .strictObject({
        /** One HTTP request to the provider (SDK timeout). Default: the SDK's (10 minutes). */
        requestMs: z.number().int().positive().max(3_600_000).optional(),
        /** One attempt of the model activity (start to close). Default 600. */
        callSeconds: z.number().int().min(1).max(3_600).default(600),
        /** Heartbeat timeout of one attempt. Default: the run's (120 s). */
        heartbeatSeconds: z.number().int().min(1).max(600).optional(),
      })
      .prefault({}),
    retry: z
      .strictObject({
        /** Attempts on this route (the first included) before the call fails or falls back. Default 6. */
        maxAttempts: z.number().int().min(1).max(20).default(6),
        initialIntervalMs: z.number().int().min(1).max(600_000).default(1_000),
        maxIntervalMs: z.number().int().min(1).max(3_600_000).default(60_000),
      })
      .prefault({}),
    /** Ordered: on a failure of this route, the first entry whose `on` has the failure's trigger. */
    fallbacks: z.array(ModelFallbackSchema).max(MAX_FALLBACKS).default([]),
    /**
     * The fast path (docs/models.md, "Fast model routes"): each call tried first as a local activity,
     * one try of at most `timeoutMs` (1 to 10,000, and no longer than `timeouts.callSeconds`).
     */
    fast: FastModelRouteSchema.optional(),
  })
  .superRefine((r, ctx) => {
    if (r.provider !== 'scripted' && r.apiKeyEnv === undefined)
      ctx.addIssue({ code: 'custom', path: ['apiKeyEnv'], message: `required for provider ${r.provider}` });
    if (r.provider === 'scripted' && r.script === undefined)
      ctx.addIssue({ code: 'custom', path: ['script'], message: 'required for provider scripted' });
    // A fast try longer than a regular attempt would outlast what the route allows one call.
    if (r.fast !== undefined && r.fast.timeoutMs > r.timeouts.callSeconds * 1000)
      ctx.addIssue({
        code: 'custom',
        path: ['fast', 'timeoutMs'],
        message: `${r.fast.timeoutMs} ms is longer than one attempt of the route (timeouts.callSeconds ${r.timeouts.callSeconds})`,
      });
  });
export type RouteVersion = z.output<typeof RouteVersionSchema>;

/**
 * A routes file (docs/models.md, "Model routes file"): every route version a worker serves, and the
 * route versions new runs pin per purpose. Unknown keys are refused, so a typo is never ignored.
 */
export const ModelRoutesFileSchema = z
  .strictObject({
    schemaVersion: z.literal(1),
    routes: z.record(ModelRouteKeySchema, RouteVersionSchema),
    purposes: RoutePurposesSchema,
  })
  .superRefine((file, ctx) => {
    const keys = Object.keys(file.routes);
    if (keys.length === 0) ctx.addIssue({ code: 'custom', path: ['routes'], message: 'no route' });
    for (const [purpose, route] of Object.entries(file.purposes)) {
      if (route !== undefined && !keys.includes(route))
        ctx.addIssue({ code: 'custom', path: ['purposes', purpose], message: `no route ${route} in routes` });
    }
    for (const [key, r] of Object.entries(file.routes)) {
      const seen = new Set<string>();
      r.fallbacks.forEach((f, i) => {
        const path = ['routes', key, 'fallbacks', i, 'route'];
        if (f.route === key)
          ctx.addIssue({ code: 'custom', path, message: 'a route cannot fall back to itself' });
        else if (!keys.includes(f.route))
          ctx.addIssue({ code: 'custom', path, message: `no route ${f.route} in routes` });
        else if (seen.has(f.route))
          ctx.addIssue({ code: 'custom', path, message: `${f.route} is listed twice` });
        seen.add(f.route);
      });
    }
  });
export type ModelRoutesFile = z.output<typeof ModelRoutesFileSchema>;

function invalid(source: string, message: string, path?: string): ModelError {
  return new ModelError('model.routes_invalid', `model routes ${source}: ${message}`, {
    details: { source, ...(path !== undefined ? { path } : {}) },
  });
}

/**
 * Validates a parsed routes file.
 * @throws ModelError `model.routes_invalid` naming the first bad field (`routes.support@v1.prices: ...`).
 */
export function parseModelRoutes(value: unknown, source: string): ModelRoutesFile {
  const parsed = ModelRoutesFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue ? issue.path.map(String).join('.') || '(root)' : '(root)';
    // A bad record key: say what a key must look like, not only that it is invalid.
    const inner = issue?.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
    throw invalid(source, `${path}: ${inner ?? issue?.message ?? 'invalid'}`, path);
  }
  return parsed.data;
}

/**
 * Reads a routes file: YAML for `.yaml`/`.yml`, JSON otherwise.
 * @throws ModelError `model.routes_invalid` when the file cannot be read or parsed, or is invalid.
 */
export function readModelRoutesFile(path: string): ModelRoutesFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw invalid(path, `cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    value = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    const why = (err as Error).message.split('\n')[0]?.slice(0, 200) ?? 'parse error';
    throw invalid(path, `not valid ${yaml ? 'YAML' : 'JSON'}: ${why}`);
  }
  return parseModelRoutes(value, path);
}
