import { ensureSystemPackages } from './system-packages.js';

/** Vitest global setup: install what the tests need from Debian when it is missing (see system-packages). */
export default function setup(): void {
  ensureSystemPackages((line) => console.error(`[setup] ${line}`));
}
