import { loadDevServerConfig } from '../../devserver/config.js';
import {
  CODEC_KEYS_ENV,
  CODEC_KEYS_FILE_ENV,
  describePayloadCodec,
  payloadCodecFromEnv,
} from '../../codec/codec-from-env.js';
import { DEFAULT_CODEC_SERVER_PORT, startCodecServer } from '../../codec/codec-server.js';
import { CodecError } from '../../codec/errors.js';
import { CliError, EXIT, usageError } from '../errors.js';
import type { Output } from '../output.js';

export interface CodecServerCommandOptions {
  readonly port?: string;
  readonly host?: string;
  readonly origin?: string[];
}

/** The variable holding the optional bearer token (a variable, so it never shows in `ps`). */
export const CODEC_SERVER_TOKEN_ENV = 'HARNESS_CODEC_SERVER_TOKEN';

/** The browser origin of a URL. @throws CliError exit 2 for anything but an http(s) URL. */
function originOf(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`${what}: not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw usageError(`${what}: expected an http(s) URL, got ${url}`);
  return parsed.origin;
}

/**
 * The Web UI origins allowed by default: `TEMPORAL_UI_URL` when set, else the dev server's UI of
 * temporal-dev.yml (as `127.0.0.1` and as `localhost` when it listens on 127.0.0.1).
 */
export function defaultUiOrigins(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.TEMPORAL_UI_URL) return [originOf(env.TEMPORAL_UI_URL, 'TEMPORAL_UI_URL')];
  const { ip, uiPort } = loadDevServerConfig().server;
  const origins = [`http://${ip}:${uiPort}`];
  if (ip === '127.0.0.1') origins.push(`http://localhost:${uiPort}`);
  return origins;
}

/**
 * `harness codec-server`: serve the Temporal codec protocol with the codec keys of the environment so
 * the Web UI shows decrypted payloads to people who can reach it (docs/security.md). Runs until
 * SIGINT/SIGTERM, logging one line per request on stderr.
 * @throws CliError exit 2 without keys (`codec.not_configured`) or for a bad option; exit 1 when the
 *   port is taken.
 */
export async function codecServerCommand(o: CodecServerCommandOptions, out: Output): Promise<number> {
  const port = o.port === undefined ? DEFAULT_CODEC_SERVER_PORT : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError(`--port: expected a port number (0-65535), got ${o.port}`);
  const host = o.host ?? '127.0.0.1';
  const origins = o.origin?.length ? o.origin.map((x) => originOf(x, '--origin')) : defaultUiOrigins();
  const codec = payloadCodecFromEnv();
  if (!codec)
    throw new CodecError(
      'codec.not_configured',
      `no codec keys: set ${CODEC_KEYS_FILE_ENV} (a key file) or ${CODEC_KEYS_ENV} (docs/security.md)`,
    );
  const token = process.env[CODEC_SERVER_TOKEN_ENV] || undefined;
  let server;
  try {
    server = await startCodecServer({ codec, host, port, origins, token, log: (l) => out.progress(l) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new CliError(
      'cli.codec_server_failed',
      `cannot listen on ${host}:${port}: ${code || (err as Error).message}`,
      EXIT.runtime,
      { host, port },
    );
  }
  out.line(`codec server at ${server.url}; ${describePayloadCodec(codec)}`);
  out.line(`allowed browser origins: ${origins.join(', ')}`);
  out.line(
    token
      ? `requests need Authorization: Bearer <${CODEC_SERVER_TOKEN_ENV}>`
      : `no token: whoever reaches ${host}:${server.port} can decode`,
  );
  out.line(
    `Web UI: server.uiCodecEndpoint: ${server.url} in temporal-dev.yml (or the UI's codec server setting); Ctrl-C to stop`,
  );
  out.data({
    url: server.url,
    origins,
    keyIds: codec.keys.keyIds,
    primary: codec.keys.primaryId,
    token: !!token,
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  out.progress('codec server stopped');
  return EXIT.ok;
}
