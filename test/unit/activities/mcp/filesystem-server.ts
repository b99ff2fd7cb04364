import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { McpStdioServer } from '../../../../src/activities/mcp/index.js';

/** Absolute path of the filesystem server's bin script, read from its package.json. */
export function filesystemServerScript(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  const bin = pkg.bin['mcp-server-filesystem'];
  if (bin === undefined) throw new Error('server-filesystem has no mcp-server-filesystem bin');
  return join(dirname(manifest), bin);
}

const roots: string[] = [];

/** A fresh temporary directory (real path, as the server resolves it); removed by {@link removeRoots}. */
export function freshRoot(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'harness-mcp-')));
  roots.push(root);
  return root;
}

/** Removes every directory {@link freshRoot} made. */
export function removeRoots(): void {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** The real filesystem server confined to `root`. */
export function filesystemServer(root: string): McpStdioServer {
  return { command: process.execPath, args: [filesystemServerScript(), root] };
}

/** Pids of live processes whose command line mentions `marker` (the server's root directory). */
export function pidsMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** Waits until no live process mentions `marker`, or fails after `timeoutMs`. */
export async function waitForNoProcess(marker: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pidsMentioning(marker).length > 0) {
    if (Date.now() > deadline)
      throw new Error(`processes still running for ${marker}: ${pidsMentioning(marker).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
