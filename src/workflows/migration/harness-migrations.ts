import { MigrationRegistry, type MigrationResult } from './migration-registry.js';
import { RunStateV1Schema } from './run-state-v1.js';
import { RunStateV2Schema, runStateV1ToV2 } from './run-state-v2.js';

/** Names of the harness's durable shapes. */
export const DurableShapes = {
  runState: 'run_state',
  event: 'event',
  signal: 'signal',
} as const;

export interface HarnessMigrationOptions {
  /**
   * The run state version the registry migrates to: `2` (default: this build's RunState,
   * run-state-v2.ts) or `1` (how a build from before version 2 reads: strict validation only, a
   * version-2 state is too new; used to check a rollback fails closed).
   */
  readonly runStateVersion?: 1 | 2;
}

/**
 * The registry of the harness's durable shapes and their migrations:
 * - `run_state`: current version 2 (see run-state-v2.ts), step 1->2; or version 1 with no steps;
 * - `event` (AgentEvent envelope, `schemaVersion: '1'`): current version 1, no steps yet;
 * - `signal` (operator signal payloads, which carry no version field: they are version 1): current 1.
 * A new registry each call, so tests and callers cannot change a shared one.
 */
export function createHarnessMigrations(options: HarnessMigrationOptions = {}): MigrationRegistry {
  const registry = new MigrationRegistry();
  if (options.runStateVersion === 1) {
    registry.defineShape({ shape: DurableShapes.runState, currentVersion: 1, current: RunStateV1Schema });
  } else {
    registry
      .defineShape({ shape: DurableShapes.runState, currentVersion: 2, current: RunStateV2Schema })
      .register(runStateV1ToV2);
  }
  return registry
    .defineShape({ shape: DurableShapes.event, currentVersion: 1 })
    .defineShape({ shape: DurableShapes.signal, currentVersion: 1, unversionedIs: 1 });
}

const HARNESS = createHarnessMigrations();

/**
 * Migrate `value` of a harness shape to its current version with {@link createHarnessMigrations}.
 * @throws MigrationError see {@link MigrationRegistry.migrate}.
 */
export function migrate<T = unknown>(shape: string, value: unknown): MigrationResult<T> {
  return HARNESS.migrate<T>(shape, value);
}
