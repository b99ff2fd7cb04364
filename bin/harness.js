#!/usr/bin/env node
// The `harness` operator CLI (docs/cli.md). In a clone it runs the TypeScript entry
// src/cli/main.ts through tsx's ESM loader (no build needed); in the installed package it runs
// the built dist/src/cli/main.js. With tsx available, an app module (--app) may be TypeScript.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/src/cli/main.js', import.meta.url);
const fromSource = existsSync(fileURLToPath(source));
try {
  const { register } = await import('tsx/esm/api');
  register();
} catch (err) {
  if (fromSource) throw err;
}
const { main, exitAfterFlush } = await import((fromSource ? source : built).href);
await exitAfterFlush(await main(process.argv.slice(2)));
