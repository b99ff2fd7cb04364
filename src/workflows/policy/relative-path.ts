import { ReasonCodes } from './reason-codes.js';
import { PolicyError } from './policy-error.js';

/**
 * Pure path confinement for path fields: POSIX-style relative paths only, normalised without
 * `node:path`, compared segment by segment against relative allowed roots.
 *
 * It checks strings, not a file system: symbolic links, case folding and Windows device names are
 * the executor's concern (it must resolve real paths inside its own root).
 */

/** Longest accepted path, in UTF-16 code units. */
export const MAX_PATH_LENGTH = 4096;

/** Why a path was refused. */
export type PathRejection =
  | typeof ReasonCodes.pathAbsolute
  | typeof ReasonCodes.pathEscape
  | typeof ReasonCodes.pathInvalid
  | typeof ReasonCodes.pathOutsideRoots;

/** A path check result: the normalised segments, or the reason code of the refusal. */
export type PathCheck = { ok: true; segments: string[] } | { ok: false; code: PathRejection };

/** Control, format (zero-width, bidi), lone surrogate and line/paragraph separator characters. */
const FORBIDDEN_CLASSES = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/**
 * Characters that look like or fold to `.`, `/`, `\` or `:` without being them: fullwidth and small
 * forms, division and fraction slashes, ideographic full stops, combining solidus overlays.
 * Characters whose NFKC form contains one of those four are refused as well (see {@link hasLookalike}).
 */
const LOOKALIKES = new Set([
  '\u2215', // division slash
  '\u2044', // fraction slash
  '\u29F8', // big solidus
  '\u29F9', // big reverse solidus
  '\u29F5', // reverse solidus operator
  '\u2216', // set minus
  '\u2571', // box drawings light diagonal
  '\u2572', // box drawings light diagonal reverse
  '\u27CB', // mathematical rising diagonal
  '\u27CD', // mathematical falling diagonal
  '\u0337', // combining short solidus overlay
  '\u0338', // combining long solidus overlay
  '\u1735', // philippine single punctuation
  '\u3002', // ideographic full stop
  '\uFF61', // halfwidth ideographic full stop
  '\u0589', // armenian full stop
  '\u06D4', // arabic full stop
  '\u2E3C', // stenographic full stop
  '\uA4F8', // lisu letter tone mya ti
]);

function hasLookalike(value: string): boolean {
  for (const ch of value) {
    if (ch.charCodeAt(0) < 0x80) continue;
    if (LOOKALIKES.has(ch)) return true;
    if (/[./\\:]/.test(ch.normalize('NFKC'))) return true;
  }
  return false;
}

/**
 * Check a path value and normalise it to segments (no `.`, no empty segments, `..` resolved).
 *
 * Refusals, in the order they are tested:
 * - `policy.path_invalid`: not a string, empty, longer than {@link MAX_PATH_LENGTH}, control or
 *   format characters (NUL included), not equal to its NFC form, look-alike separators or dots,
 *   a backslash inside, a colon not forming a drive prefix, or a segment of only dots and spaces
 *   other than `.` and `..` (Windows strips trailing dots and spaces);
 * - `policy.path_absolute`: starts with `/`, `\` (UNC included), `~`, or a drive prefix `C:`;
 * - `policy.path_escape`: a `..` climbs above the starting directory.
 */
export function normalizeRelativePath(value: unknown): PathCheck {
  const invalid = { ok: false, code: ReasonCodes.pathInvalid } as const;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PATH_LENGTH) return invalid;
  if (FORBIDDEN_CLASSES.test(value)) return invalid;
  if (value.normalize('NFC') !== value || hasLookalike(value)) return invalid;
  if (/^[/\\~]/.test(value) || /^[A-Za-z]:/.test(value)) return { ok: false, code: ReasonCodes.pathAbsolute };
  if (value.includes('\\') || value.includes(':')) return invalid;
  const segments: string[] = [];
  for (const segment of value.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.pop() === undefined) return { ok: false, code: ReasonCodes.pathEscape };
      continue;
    }
    if (/^[. ]+$/.test(segment)) return invalid;
    segments.push(segment);
  }
  return { ok: true, segments };
}

/**
 * Normalise an allowed root given by trusted configuration. `.` means the whole workspace.
 * @throws PolicyError `policy.config_invalid` when the root is not a valid relative path or escapes.
 */
export function normalizeRoot(root: string): string[] {
  const check = root === '.' ? { ok: true as const, segments: [] } : normalizeRelativePath(root);
  if (!check.ok) {
    throw new PolicyError(
      'policy.config_invalid',
      `allowed root ${JSON.stringify(root)} is refused: ${check.code}`,
      {
        field: 'allowedRoots',
        root,
        code: check.code,
      },
    );
  }
  return check.segments;
}

/**
 * Check `value` and confine it to one of `roots` (normalised with {@link normalizeRoot}). A path is
 * inside a root when the root's segments are a prefix of the path's segments (`data2` is not inside
 * `data`); the root itself counts as inside.
 */
export function confinePath(value: unknown, roots: readonly (readonly string[])[]): PathCheck {
  const check = normalizeRelativePath(value);
  if (!check.ok) return check;
  const inside = roots.some(
    (root) =>
      root.length <= check.segments.length && root.every((segment, i) => check.segments[i] === segment),
  );
  return inside ? check : { ok: false, code: ReasonCodes.pathOutsideRoots };
}
