import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BundleError } from './bundle-error.js';

/** The rollout secret itself (at least {@link MIN_ROLLOUT_SECRET_LENGTH} bytes of UTF-8). */
export const ROLLOUT_SECRET_ENV = 'HARNESS_ROLLOUT_SECRET';
/** A file holding the rollout secret (its content, trimmed). */
export const ROLLOUT_SECRET_FILE_ENV = 'HARNESS_ROLLOUT_SECRET_FILE';
/** The shortest secret accepted: 32 bytes (a generated one is 43 characters, 32 random bytes in base64url). */
export const MIN_ROLLOUT_SECRET_LENGTH = 32;
const MAX_ROLLOUT_SECRET_LENGTH = 4096;

/** Where a worker without a configured secret keeps the one it generates (the git-ignored data folder). */
export function devRolloutSecretPath(dataDir = resolve(process.cwd(), '.data')): string {
  return join(dataDir, 'keys', 'rollout-secret');
}

/** A resolved rollout secret and where it came from (never the secret in anything printable). */
export interface RolloutSecret {
  readonly secret: Buffer;
  readonly source: 'option' | 'env' | 'file' | 'dev-file';
  /** The file it was read from or written to (`file`, `dev-file`). */
  readonly path?: string;
  /** True when this call generated the dev file. */
  readonly created: boolean;
}

function checked(value: string | Uint8Array, from: string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value.trim(), 'utf8') : Buffer.from(value);
  if (bytes.length < MIN_ROLLOUT_SECRET_LENGTH || bytes.length > MAX_ROLLOUT_SECRET_LENGTH)
    throw new BundleError(
      'bundle.invalid',
      `the rollout secret from ${from} must be ${MIN_ROLLOUT_SECRET_LENGTH} to ${MAX_ROLLOUT_SECRET_LENGTH} bytes (it is ${bytes.length})`,
      { source: from },
    );
  return bytes;
}

function readSecretFile(path: string, from: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new BundleError('bundle.invalid', `cannot read the rollout secret file ${path} (${code})`, {
      source: from,
      path,
    });
  }
  return checked(text, from);
}

/**
 * Create the dev secret file if it is absent (32 random bytes, base64url, mode 0600), race-free: the
 * content is written to a private temporary file and linked into place, so a concurrent worker either
 * wins or reads the complete file of the winner.
 * @returns whether this call created it.
 */
function ensureDevSecretFile(path: string): boolean {
  if (existsSync(path)) return false;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      unlinkSync(tmp);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new BundleError(
      'bundle.invalid',
      `the rollout needs a worker-side secret: set ${ROLLOUT_SECRET_ENV} or ${ROLLOUT_SECRET_FILE_ENV} (the same on every worker), or let the worker create ${path} (failed: ${code})`,
      { path },
    );
  }
}

/**
 * The secret that salts rollout arms (docs/control-plane.md), from worker composition only, in this
 * order: `secret` (an option of the composition), `HARNESS_ROLLOUT_SECRET`, the file named by
 * `HARNESS_ROLLOUT_SECRET_FILE`, else the dev file `.data/keys/rollout-secret` (created on first use).
 * Every worker of a task queue should share one secret so a workflow id gets the same arm on each;
 * the dev file suits a single host. The secret never enters workflow input, history, events, prompts
 * or logs: only the bucket and arm it yields are recorded.
 * @throws BundleError `bundle.invalid` when both variables are set, a secret is shorter than 32 or
 *   longer than 4096 bytes, the file cannot be read, or the dev file cannot be created.
 */
export function resolveRolloutSecret(
  o: {
    readonly secret?: string | Uint8Array;
    readonly env?: NodeJS.ProcessEnv;
    readonly dataDir?: string;
  } = {},
): RolloutSecret {
  if (o.secret !== undefined)
    return { secret: checked(o.secret, 'the rolloutSecret option'), source: 'option', created: false };
  const env = o.env ?? process.env;
  const inline = env[ROLLOUT_SECRET_ENV] || undefined;
  const file = env[ROLLOUT_SECRET_FILE_ENV]?.trim() || undefined;
  if (inline !== undefined && file !== undefined)
    throw new BundleError(
      'bundle.invalid',
      `set ${ROLLOUT_SECRET_ENV} or ${ROLLOUT_SECRET_FILE_ENV}, not both`,
      {
        source: ROLLOUT_SECRET_ENV,
      },
    );
  if (inline !== undefined)
    return { secret: checked(inline, ROLLOUT_SECRET_ENV), source: 'env', created: false };
  if (file !== undefined)
    return {
      secret: readSecretFile(file, ROLLOUT_SECRET_FILE_ENV),
      source: 'file',
      path: file,
      created: false,
    };
  const path = devRolloutSecretPath(o.dataDir);
  const created = ensureDevSecretFile(path);
  return { secret: readSecretFile(path, path), source: 'dev-file', path, created };
}
