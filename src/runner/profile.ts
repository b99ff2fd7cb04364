import type { CompletionContract } from '../completion/index.js';
import type { RunContext } from './run-context.js';

/** What a profile's run returns: the final output it interpreted (not yet judged). */
export interface ProfileResult {
  readonly output: unknown;
}

/**
 * A profile owns prompt preparation and interpretation of non-tool model output (seed 000 §3). It is
 * registered by exact name and version in the trusted workflow composition; runs pin it.
 * Profile code runs in the workflow sandbox: deterministic, no I/O (use the RunContext).
 */
export interface Profile {
  readonly name: string;
  readonly version: string;
  readonly kind: 'goal' | 'graph';
  readonly completion: CompletionContract;
  /** Tool names (or `name@version`) this profile may use; the policy narrows further. */
  readonly tools: readonly string[];
  run(ctx: RunContext): Promise<ProfileResult>;
}
