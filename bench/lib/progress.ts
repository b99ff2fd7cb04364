const t0 = Date.now();

/** A progress line on stderr with the elapsed time, so stdout keeps only the table. */
export function progress(line: string): void {
  const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${s}s] ${line}\n`);
}
