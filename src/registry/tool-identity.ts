import { InvalidToolNameError, InvalidToolVersionError } from './errors.js';
import { versionedName } from '../contract/versioned-name.js';

/** Maximum length of a tool name. */
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * A tool name: lowercase dot-separated segments, at least two, each `[a-z][a-z0-9_]*`,
 * e.g. `report.generate` or `fs.read_file`.
 */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** A tool version: `v` followed by an integer >= 1 without leading zeros, e.g. `v1`, `v12`. */
export const TOOL_VERSION_PATTERN = /^v[1-9][0-9]*$/;

/**
 * Checks a tool name. Pure.
 *
 * @throws {InvalidToolNameError} `registry.invalid_name` when not a string, longer than
 * {@link MAX_TOOL_NAME_LENGTH} or not matching {@link TOOL_NAME_PATTERN}.
 */
export function assertToolName(name: unknown): asserts name is string {
  if (typeof name !== 'string') throw new InvalidToolNameError(name, 'not a string');
  if (name.length > MAX_TOOL_NAME_LENGTH) {
    throw new InvalidToolNameError(name, `longer than ${MAX_TOOL_NAME_LENGTH} characters`);
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new InvalidToolNameError(
      name,
      'expected lowercase dot-separated segments (at least two), each [a-z][a-z0-9_]*, e.g. report.generate',
    );
  }
}

/**
 * Checks a tool version. Pure.
 *
 * @throws {InvalidToolVersionError} `registry.invalid_version` when not `vN` (N >= 1, no leading zeros).
 */
export function assertToolVersion(version: unknown): asserts version is string {
  if (typeof version !== 'string' || !TOOL_VERSION_PATTERN.test(version))
    throw new InvalidToolVersionError(version);
}

/** The `name@version` key of a tool, e.g. `report.generate@v1`. Does not validate. */
export function toolKey(name: string, version: string): string {
  return versionedName(name, version);
}
