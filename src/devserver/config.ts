import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { HarnessError } from '../contract/errors.js';

/** An http(s) URL without credentials: the codec server the Web UI calls (docs/security.md). */
const CodecEndpoint = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
  } catch {
    return false;
  }
}, 'expected an http(s) URL such as http://127.0.0.1:8888 (the `harness codec-server`)');

const SearchAttributeType = z.enum(['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList']);

/** Schema of `temporal-dev.yml`. Unknown keys are rejected so a typo cannot be silently ignored. */
export const DevServerConfigSchema = z
  .object({
    cli: z.object({ version: z.string().regex(/^\d+\.\d+\.\d+$/, 'expected a release like 1.5.1') }).strict(),
    server: z
      .object({
        ip: z.string().min(1),
        port: z.number().int().min(1).max(65535),
        uiPort: z.number().int().min(1).max(65535),
        namespace: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/),
        dbFile: z.string().min(1),
        logLevel: z.enum(['debug', 'info', 'warn', 'error']),
        startTimeoutSeconds: z.number().positive().max(600),
        /**
         * Optional: the codec server the Web UI decodes payloads with (`--ui-codec-endpoint`). Absent by
         * default: the codec is off on the dev server.
         */
        uiCodecEndpoint: CodecEndpoint.optional(),
      })
      .strict(),
    searchAttributes: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), SearchAttributeType),
    dynamicConfig: z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()])),
  })
  .strict();

export type DevServerConfig = z.infer<typeof DevServerConfigSchema>;

/** Thrown when temporal-dev.yml is missing, unparsable or invalid; the message names the field. */
export class DevServerConfigError extends HarnessError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('devserver.config_invalid', message, details);
  }
}

/**
 * The package root (where package.json and temporal-dev.yml live): the repository in a clone, the
 * installed package's folder when it runs from `dist/` (no package.json in between).
 */
export const projectRoot = packageRootAbove(dirname(fileURLToPath(import.meta.url)));

function packageRootAbove(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) return resolve(dir, '..', '..');
  }
}

/** Default location of the config file. */
export const defaultConfigPath = resolve(projectRoot, 'temporal-dev.yml');

/**
 * Parse and validate a temporal-dev.yml text.
 * @throws DevServerConfigError naming the first invalid field, e.g. `server.port: expected number`.
 */
export function parseDevServerConfig(text: string, source = 'temporal-dev.yml'): DevServerConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new DevServerConfigError(`${source}: not valid YAML: ${(err as Error).message}`);
  }
  const parsed = DevServerConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    const keys = issue && 'keys' in issue && Array.isArray(issue.keys) ? ` (${issue.keys.join(', ')})` : '';
    throw new DevServerConfigError(`${source}: ${field}: ${issue?.message ?? 'invalid'}${keys}`, {
      field,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/**
 * Load temporal-dev.yml (default: the repository's). `dbFile` is resolved against the file's folder.
 * @throws DevServerConfigError when the file cannot be read or is invalid.
 */
export function loadDevServerConfig(path = defaultConfigPath): DevServerConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new DevServerConfigError(`cannot read ${path}: ${(err as Error).message}`);
  }
  const config = parseDevServerConfig(text, path);
  const dbFile = isAbsolute(config.server.dbFile)
    ? config.server.dbFile
    : resolve(dirname(path), config.server.dbFile);
  return { ...config, server: { ...config.server, dbFile } };
}
