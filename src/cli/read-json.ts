import { readFileSync } from 'node:fs';
import { notFoundError, usageError } from './errors.js';

/**
 * Parse an option given as inline JSON or `@file` (a JSON file).
 * @throws CliError exit 3 when the file cannot be read, exit 2 when the text is not JSON or not an object.
 */
export function readJsonObject(option: string, value: string): Record<string, unknown> {
  let text = value;
  if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw notFoundError(
        `${option}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        { option, file },
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw usageError(`${option}: not valid JSON: ${(err as Error).message}`, { option });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError(`${option}: expected a JSON object`, { option });
  }
  return parsed as Record<string, unknown>;
}

/** Parse a positive integer option. @throws CliError exit 2 naming the option. */
export function parsePositiveInt(option: string, value: string, allowZero = false): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1))
    throw usageError(
      `${option}: expected ${allowZero ? 'a non-negative' : 'a positive'} integer, got ${JSON.stringify(value)}`,
      { option },
    );
  return n;
}
