import { printableBlock } from './printable.js';

/**
 * Where the CLI writes: results to stdout (readable text, or JSON with `--json`), progress and errors
 * to stderr so `--json` output stays parseable. Readable lines and progress pass through
 * {@link printableBlock}: no terminal control sequence from a value reaches the screen.
 */
export interface Output {
  readonly json: boolean;
  /** A readable line on stdout (suppressed with `--json`); control characters escaped, line feeds kept. */
  line(text?: string): void;
  /** The machine-readable result on stdout (only with `--json`). */
  data(value: unknown): void;
  /** Progress of long work on stderr (always). */
  progress(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    line: (text = '') => {
      if (!json) process.stdout.write(`${printableBlock(text)}\n`);
    },
    data: (value) => {
      if (json) process.stdout.write(`${JSON.stringify(value)}\n`);
    },
    progress: (text) => process.stderr.write(`${printableBlock(text)}\n`),
  };
}

/** Render rows as aligned columns under a header; `-` for empty cells. */
export function table(
  header: readonly string[],
  rows: readonly (readonly (string | number | undefined | null)[])[],
): string {
  const cells = [
    header,
    ...rows.map((r) => r.map((c) => (c === undefined || c === null || c === '' ? '-' : String(c)))),
  ];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Compact one-line JSON, cut at `max` characters. */
export function brief(value: unknown, max = 160): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
