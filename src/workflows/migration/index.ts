/**
 * Schema migration of durable shapes (run state, events, signals). Workflow-sandbox safe: zod,
 * src/contract, runner types and guardrail schemas only. See docs/guardrails.md (state migration).
 */
export {
  DurableShapes,
  createHarnessMigrations,
  migrate,
  type HarnessMigrationOptions,
} from './harness-migrations.js';
export { MigrationError, MigrationErrorCodes, type MigrationErrorCode } from './migration-error.js';
export {
  MigrationRegistry,
  type MigrationResult,
  type MigrationStep,
  type ShapeDefinition,
} from './migration-registry.js';
export { RunStateV1Schema, type RunStateV1 } from './run-state-v1.js';
export {
  RUN_STATE_V2_MATCHES_RUNNER,
  RunStateV2Schema,
  runStateV1ToV2,
  type RunStateV2,
} from './run-state-v2.js';
