import { migration001Initial } from './001-initial.js';
import { migration002Runs } from './002-runs.js';
import { migration003RunTenants } from './003-run-tenants.js';
import { migration004FailureSamples } from './004-failure-samples.js';
import { migration005ThreadMemory } from './005-thread-memory.js';
import { migration006ProvisionalEvents } from './006-provisional-events.js';
import { migration007Retrieval } from './007-retrieval.js';
import { migration008EventChain } from './008-event-chain.js';
import { migration009ErasableValues } from './009-erasable-values.js';
import { migration010ErasureChain } from './010-erasure-chain.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

/** Every migration of this build, in version order. The last one's version is the schema version. */
export const MIGRATIONS: readonly Migration[] = [
  migration001Initial,
  migration002Runs,
  migration003RunTenants,
  migration004FailureSamples,
  migration005ThreadMemory,
  migration006ProvisionalEvents,
  migration007Retrieval,
  migration008EventChain,
  migration009ErasableValues,
  migration010ErasureChain,
];

/** Schema version this build writes and understands. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
