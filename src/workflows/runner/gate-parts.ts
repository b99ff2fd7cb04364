import type { DecisionIntake } from './decision-intake.js';
import type { HumanWait } from './human-wait.js';
import type { RunCore } from './run-core.js';
import type { DecisionAuthority } from '../authz/decision-authority.js';
import { addSeconds } from '../policy/index.js';

/** What the waits of the human gate share: the run, the intake, the wait and the request timeout. */
export interface GateParts {
  readonly core: RunCore;
  readonly intake: DecisionIntake;
  readonly humanWait: HumanWait;
  /** Signed runs: who decides. */
  readonly authority: DecisionAuthority | undefined;
  /** Seconds after which a human request expires (the run's `approvalTimeoutSeconds`). */
  readonly timeoutSeconds: number;
}

/**
 * When a reconcile or input request asked now expires: after the run's request timeout, for runs with
 * `agent-run-human-request-expiry-v1`; null (no expiry, as before) for older runs. Never throws.
 */
export function requestExpiry(g: GateParts): string | null {
  return g.core.features.on('humanRequestExpiry') ? addSeconds(g.core.ports.now(), g.timeoutSeconds) : null;
}
