#!/usr/bin/env node
// The `harness` operator CLI (docs/cli.md). Runs the TypeScript entry src/client/cli/main.ts in this process
// through tsx's ESM loader, so `npx harness ...` works in a clone without a build.
import process from 'node:process';
import { URL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { main, exitAfterFlush } = await import(new URL('../src/client/cli/main.ts', import.meta.url).href);
await exitAfterFlush(await main(process.argv.slice(2)));
