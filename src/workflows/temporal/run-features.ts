import { patched } from '@temporalio/workflow';
import { featuresOf, type RunFeatures } from '../runner/run-features.js';
import {
  BOUNDED_VALUES_PATCH,
  DATA_TAINT_PATCH,
  MODEL_FALLBACK_PATCH,
  OUTPUT_RETRY_PATCH,
  OUTPUT_TEXT_LIMIT_PATCH,
  TRUSTED_IDS_PATCH,
  WRITE_EXHAUSTION_PATCH,
  WRITE_RECOVERY_PATCH,
  WRITE_RETRY_IDEMPOTENCY_PATCH,
  type RunPatches,
} from './run-patches.js';
import type { StartPatches } from './start-patches.js';

/**
 * The runner's features on Temporal: each answered by its `patched()` id at the moment the runner asks
 * (a marker the first time, on the paths that need it), or by what the run decided at its start. Asking
 * order and places are the runner's, exactly as when these were port methods and option closures.
 */
export function temporalRunFeatures(runPatches: RunPatches, decided: StartPatches): RunFeatures {
  return featuresOf({
    writeRecovery: () => runPatches.on(WRITE_RECOVERY_PATCH),
    writeExhaustionToPerson: () => runPatches.on(WRITE_EXHAUSTION_PATCH),
    // After the baselines: always its own marker, on its path only.
    writeRetryNeedsIdempotency: () => patched(WRITE_RETRY_IDEMPOTENCY_PATCH),
    boundedValues: () => runPatches.on(BOUNDED_VALUES_PATCH),
    graphNodeChecks: decided.graphNodeChecks,
    dataTaint: () => runPatches.on(DATA_TAINT_PATCH),
    outputRetry: () => runPatches.on(OUTPUT_RETRY_PATCH),
    trustedIdentifiers: () => runPatches.on(TRUSTED_IDS_PATCH),
    outputTextLimit: () => runPatches.on(OUTPUT_TEXT_LIMIT_PATCH),
    modelFallback: () => runPatches.on(MODEL_FALLBACK_PATCH),
    invalidToolCalls: decided.invalidToolCalls,
    decisionRules: decided.decisionRules,
    toolDefinitionPin: decided.toolDefinitionPin,
    modelContextRef: decided.modelContextRef,
    requestMoreInfo: decided.requestMoreInfo,
    humanRequestExpiry: decided.humanRequestExpiry,
    versionedFacts: decided.versionedFacts,
    contextPriority: decided.contextPriority,
    fastPath: decided.fastPath,
    stepContracts: decided.stepContracts,
    deliveredOutcome: decided.deliveredOutcome,
    workerRefusal: decided.workerRefusal,
    runSeal: decided.runSeal,
    configPin: decided.configPin,
  });
}
