import { Context } from '@temporalio/activity';
import type { ToolCallResult } from '../contract/step-io.js';
import type { ToolRegistry } from '../registry/index.js';
import type {
  ToolActivities,
  AnyToolCallActivityInput,
  CompactToolInputV3,
  ToolCallActivityInputV2,
} from '../contract/activity-interfaces.js';
import type { EvidenceStore } from './store/index.js';
import type { InvocationRecord } from '../contract/store-records.js';
import { completeToolInput, type CompactToolInput } from '../contract/compact-step-input.js';
import { toolCallDerivation } from '../contract/packed-events-by-ref.js';
import { callingWorkflowId } from './calling-workflow-id.js';
import { restoreToolInputV3 } from './step-input-v3.js';
import { eventsOf } from './store-events.js';
import { sha256Digest } from './digest.js';
import { beforeEffect, executeTool, intervalHeads, writeHead } from './tool-attempt.js';
import type { ChainHeadSigner } from './attestation/chain-head-signer.js';
import { storedResultOf } from './tool-results.js';
import { recordOperatorResolution, resolveLostInvocation } from './write-resolution.js';
import { versionedName } from '../contract/versioned-name.js';
import type { ModelRouter } from './model-router.js';
import { refuseChangedConfig, type RunConfigSources } from './run-config-digest.js';

export interface ToolActivityDeps extends RunConfigSources {
  readonly registry: ToolRegistry;
  readonly store: EvidenceStore;
  readonly identity: string;
  /** The worker's attestation key: writes return their commit-point heads (docs/evidence-chain.md). */
  readonly attestation?: ChainHeadSigner;
  /** The worker's model routes: what a run's config pin covers. */
  readonly models?: ModelRouter;
}

/**
 * The tool activities. `runTool` follows the durable order of seed 000 §5: the intent is durable before
 * the executor runs; result and artifacts are written in one transaction; only a bounded result goes
 * back to the workflow ({@link executeTool}). `resolveLostInvocation` settles a write whose activity
 * was lost, `recordOperatorResolution` records a person's decision on one (write-resolution.ts).
 */
export function createToolActivities(deps: ToolActivityDeps): ToolActivities {
  const { registry, store } = deps;

  /**
   * Run one tool invocation (one attempt): the result an earlier attempt recorded, else
   * {@link executeTool}. A write that fails before its executor is called fails `tool.not_started`
   * (nothing happened; the run may try it again); a read's errors are thrown as they are (retried).
   * A call whose run pinned another configuration (`configPin`) fails `worker.config_changed`
   * (non-retryable) before anything is recorded: the run schedules it again for another worker.
   */
  const runTool = async (input: AnyToolCallActivityInput): Promise<ToolCallResult> => {
    // A run's config pin: a worker with another configuration refuses before anything is recorded.
    refuseChangedConfig(deps, input.configPin, {
      runId: input.runId,
      what: `${versionedName(input.tool, input.version)} #${input.seq}`,
    });
    const found = await beforeEffect(input, async () => {
      // The run's events go in the transaction of the intent; an attempt that returns a result
      // recorded earlier stores them alone. A failed attempt may leave them: the run sends them again
      // (ToolPipeline.invoke).
      const events = await eventsOf(store, input.events, {
        derive: toolCallDerivation(input),
        runId: input.runId,
      });
      const record = await store.getInvocation(input.runId, input.seq);
      // On a run's new attempt, the result of an earlier one is what made it try again (not applied).
      const stale = input.attempt !== undefined && (record?.result?.attempt ?? 0) < input.attempt;
      // A read attempt recorded failed_retryable is what made Temporal try again: no result to reuse.
      const retried = record?.result?.status === 'failed_retryable';
      const existing = stale || retried ? undefined : await storedResultOf(store, record);
      if (existing) {
        if (Context.current().info.isLocal) await store.appendLastFlush(events);
        else await store.appendEvents(events);
      }
      return { events, existing, attempt: attemptOf(input, record) };
    });
    if (found.existing) {
      // This attempt finished but its completion was lost: the result stands, signed as it is now
      // (a head that cannot be signed is left out: the verifier reports it, the result is not lost).
      const heads = await Promise.all([
        intervalHeads(deps, found.events),
        writeHead(deps, input, 'write.after', found.events),
      ]).then(
        ([interval, after]) => [...interval, ...after],
        () => [],
      );
      return heads.length > 0 ? { ...found.existing, heads } : found.existing;
    }
    return executeTool(deps, input, found.attempt, found.events);
  };

  return {
    runTool,
    // The same under the name runs scheduled by this release call, with the compact input (an older
    // worker would not read it).
    runToolV2: (input: CompactToolInput<ToolCallActivityInputV2>) =>
      runTool(completeToolInput(input, callingWorkflowId(), sha256Digest)),
    // The third format is restored before the effect: a write that cannot be restored did not start.
    runToolV3: async (input: CompactToolInputV3) => {
      const workflowId = callingWorkflowId();
      return runTool(
        await beforeEffect(input, () => restoreToolInputV3(store, input, workflowId, sha256Digest)),
      );
    },
    resolveLostInvocation: (input) => resolveLostInvocation(registry, store, input),
    recordOperatorResolution: (input) => recordOperatorResolution(store, input),
  };
}

/**
 * The attempt number an attempt records: the run's (`input.attempt`), else the activity's. A read
 * takes at least one more than any attempt already recorded for its seq: a fast read's local activity
 * starts again at attempt 1 after a lost worker, and its fallback activity too, so each recorded
 * attempt keeps its own row (an earlier worker's intent is never overwritten or refused).
 */
function attemptOf(input: AnyToolCallActivityInput, record: InvocationRecord | undefined): number {
  if (input.attempt !== undefined) return input.attempt;
  const own = Context.current().info.attempt;
  if (input.effect === 'write' || record === undefined) return own;
  return Math.max(own, ...record.intents.map((i) => i.attempt + 1));
}
