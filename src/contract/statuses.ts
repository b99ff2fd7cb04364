import { z } from 'zod';
import { HarnessError } from './errors.js';

/** The run statuses of seed 004. */
export const RunStatusSchema = z.enum([
  'created',
  'queued',
  'running',
  'awaiting_input',
  'awaiting_confirmation',
  'awaiting_human',
  'retry_scheduled',
  'succeeded',
  'failed',
  'cancelled',
  'budget_exhausted',
]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const TERMINAL_STATUSES: readonly RunStatus[] = [
  'succeeded',
  'failed',
  'cancelled',
  'budget_exhausted',
];
export const WAITING_STATUSES: readonly RunStatus[] = [
  'awaiting_input',
  'awaiting_confirmation',
  'awaiting_human',
];

const ENDINGS: RunStatus[] = ['failed', 'cancelled', 'budget_exhausted'];

/**
 * The transition table, kept as data: for each status, the statuses it may move to. Anything not
 * listed is illegal and {@link assertTransition} refuses it.
 */
export const TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  created: ['queued', ...ENDINGS],
  queued: ['running', ...ENDINGS],
  running: [
    'awaiting_input',
    'awaiting_confirmation',
    'awaiting_human',
    'retry_scheduled',
    'succeeded',
    ...ENDINGS,
  ],
  awaiting_input: ['running', ...ENDINGS],
  awaiting_confirmation: ['running', ...ENDINGS],
  awaiting_human: ['running', ...ENDINGS],
  retry_scheduled: ['running', ...ENDINGS],
  succeeded: [],
  failed: [],
  cancelled: [],
  budget_exhausted: [],
};

/** A transition not in {@link TRANSITIONS} was attempted. This is a bug in the runner or a profile. */
export class IllegalTransitionError extends HarnessError {
  constructor(from: RunStatus, to: RunStatus) {
    super('run.illegal_transition', `illegal run status transition ${from} -> ${to}`, { from, to });
  }
}

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** @throws IllegalTransitionError when `from -> to` is not in the table. */
export function assertTransition(from: RunStatus, to: RunStatus): void {
  if (!TRANSITIONS[from].includes(to)) throw new IllegalTransitionError(from, to);
}
