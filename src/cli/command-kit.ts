import type { Command } from 'commander';
import type { Output } from './output.js';
import type { HarnessApp } from '../worker/app.js';

/** What every command's action uses: its output, the app it names, and the exit code it sets. */
export interface CommandKit {
  /** The output of `cmd` (`--json` on the program or the command). */
  readonly out: (cmd: Command) => Output;
  /**
   * The app module `--app` names (else HARNESS_APP, else the nearest package.json's).
   * Rejects as `loadHarnessApp` does.
   */
  readonly appOf: (cmd: Command) => Promise<HarnessApp>;
  /** Runs an action and sets the program's exit code to what it returns; rejects as the action does. */
  readonly run: (fn: () => Promise<number>) => Promise<void>;
}
