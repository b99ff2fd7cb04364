import type { Migration } from './migration.js';

/**
 * Events stored by the last flush of a workflow execution (a local activity, inside its workflow
 * task) are provisional: when that task attempt is abandoned, the retried attempt's events (the ones
 * the history records) may replace them (src/activities/store/event-append-program.ts). Every other event
 * is final. Events stored before this migration are final.
 */
export const migration006ProvisionalEvents: Migration = {
  version: 6,
  name: 'provisional_events',
  statements: ['ALTER TABLE events ADD COLUMN provisional INTEGER NOT NULL DEFAULT 0'],
};
