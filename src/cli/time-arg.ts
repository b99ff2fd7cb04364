import { usageError } from './errors.js';

const AGO = /^(\d{1,6})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A time argument (`--since`, `--until`): an ISO 8601 time with offset, or an age (`30m`, `24h`,
 * `7d`) counted back from `now`. Returns the instant as `toISOString()`.
 * @throws CliError exit 2 for anything else.
 */
export function parseSince(text: string, now = Date.now(), flag = '--since'): string {
  const ago = AGO.exec(text);
  if (ago) return new Date(now - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]).toISOString();
  if (/^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text)))
    return new Date(text).toISOString();
  throw usageError(
    `${flag} must be an ISO 8601 time with offset or an age like 30m, 24h, 7d (got "${text}")`,
    {
      since: text,
    },
  );
}
