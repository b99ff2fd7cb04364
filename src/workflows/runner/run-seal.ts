import { isTerminal } from '../../contract/statuses.js';
import type { RunCore } from './run-core.js';

/** The event that seals a finished run (docs/events.md, docs/evidence-chain.md "The seal"). */
export const RUN_SEALED = 'run.sealed';

/**
 * Seal a finished run: a run that has ended (a terminal status) and takes the seal
 * (`agent-run-seal-v1`) emits its final event, `run.sealed` `{ status, events }` (`events`: how many
 * events the run stored before it, across its generations), so the flush that stores it next (the
 * last) is the one whose signed head is the run's seal. A generation that continues as new is not
 * sealed. Records nothing else; never throws.
 */
export function sealIfFinished(core: RunCore): void {
  const { state } = core;
  if (isTerminal(state.status) && core.features.on('runSeal'))
    core.emit(RUN_SEALED, { status: state.status, events: state.nextEventSeq - 1 });
}

/**
 * The last flush of an execution: {@link sealIfFinished}, then the outbox stored as the last flush.
 * Failure semantics: as the flush port's (the bookkeeping activity's failure).
 */
export async function flushLast(core: RunCore): Promise<void> {
  sealIfFinished(core);
  await core.ports.flushEvents(core.takeOutbox(), { last: true });
}
