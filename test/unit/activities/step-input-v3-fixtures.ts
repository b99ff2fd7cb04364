import type { AgentEvent } from '../../../src/contract/agent-event.js';
import type { CompactModelInputV3, CompactToolInputV3 } from '../../../src/contract/activity-interfaces.js';
import {
  compactModelInput,
  compactToolInput,
  completeModelInput,
  completeToolInput,
} from '../../../src/contract/compact-step-input.js';
import { compactModelInputV3, compactToolInputV3 } from '../../../src/contract/compact-step-input-v3.js';
import {
  modelCallDerivation,
  packEventsByRef,
  toolCallDerivation,
} from '../../../src/contract/packed-events-by-ref.js';
import {
  headerOfV3,
  packEventsV3,
  toolCallDerivationV3,
  type CallDefaults,
} from '../../../src/contract/packed-events-v3.js';
import type { ModelCallInput, ToolCallInput } from '../../../src/contract/step-io.js';
import { sha256Digest } from '../../../src/activities/digest.js';
import { argsDigestOf } from '../../../src/workflows/runner/args-digest.js';

/** The shared inputs of the third step format tests (step-input-v3.test.ts): a goal step and its v2/v3 forms. */
const VERSIONS = {
  profile: 'bench.steps@v1',
  policy: 'allow_all@v1',
  toolRegistryDigest: 'sha256:' + 'a'.repeat(64),
  modelRoute: 'scripted/bench',
  configDigest: 'sha256:' + 'c'.repeat(64),
};
const PIN = { digest: VERSIONS.configDigest, modelRoute: VERSIONS.modelRoute };
const DEFINITION = 'sha256:' + 'd'.repeat(64);
/** The execution's call defaults: its config pin and its one tool's pinned definition. */
const CALLS: CallDefaults = { configPin: PIN, tools: { 'bench.noop@v1': DEFINITION } };
const AT = '2026-12-05T22:00:00.000Z';

function event(
  runId: string,
  sequence: number,
  type: string,
  producer: string,
  data: object,
  ids?: [string | null, string | null],
): AgentEvent {
  return {
    schemaVersion: '1',
    eventId: `${runId}:${sequence}`,
    traceId: runId,
    runId,
    threadId: runId,
    stepId: ids?.[0] ?? null,
    attemptId: ids?.[1] ?? null,
    sequence,
    type,
    occurredAt: AT,
    producer,
    data: data as Record<string, unknown>,
    dataClassification: 'internal',
    versions: VERSIONS,
  };
}

/** One goal step of a run as the runner makes it: the tool call's batch, and the next model call's. */
function goalStep(runId: string, n: number, seq: number) {
  const args = { step: n };
  const argsDigest = argsDigestOf(args);
  const tool: ToolCallInput = {
    runId,
    seq,
    tool: 'bench.noop',
    version: 'v1',
    effect: 'read',
    args,
    argsDigest,
    idempotencyKey: `${runId}/${seq}`,
    definitionDigest: DEFINITION,
    recordFailedAttempts: true,
    workerRefusal: true,
    configPin: PIN,
    events: [
      event(
        runId,
        10,
        'model.completed',
        'model_gateway',
        {
          callSeq: n,
          purpose: 'decide',
          stopReason: 'tool_calls',
          usage: { inputTokens: 120, outputTokens: 8 },
          costUsd: 0,
          toolCalls: ['bench.noop@v1'],
          replayed: false,
          activityAttempt: 1,
          context: { packageId: `${runId}:ctx${n}`, digest: 'sha256:' + 'e'.repeat(64) },
        },
        [`model-${n}`, `model-${n}#1`],
      ),
      event(runId, 11, 'tool.proposed', 'tool_pipeline', {
        tool: 'bench.noop',
        version: 'v1',
        proposalId: `${runId}:m${n}:a1_tc0`,
      }),
      event(runId, 12, 'policy.decided', 'policy', {
        stage: 'dispatch',
        tool: 'bench.noop',
        version: 'v1',
        argsDigest,
        decision: 'allow',
        policyVersion: 'allow_all@v1',
        reasonCodes: ['policy.allow_all'],
        obligations: [],
        rules: { source: 'code', policy: 'allow_all@v1' },
      }),
      event(
        runId,
        13,
        'tool.authorized',
        'tool_pipeline',
        { seq, tool: 'bench.noop', version: 'v1', effect: 'read', argsDigest },
        [`tool-${seq}`, `tool-${seq}#1`],
      ),
    ],
  };
  const model: ModelCallInput = {
    runId,
    callSeq: n + 1,
    purpose: 'decide',
    modelRoute: 'scripted/bench',
    newMessages: [
      { role: 'tool', toolCallId: `${runId}:m${n}:a1_tc0`, content: '', trust: 'untrusted', resultOf: seq },
    ],
    toolKeys: ['bench.noop@v1'],
    invalidToolCalls: 'report',
    contextOrder: 'priority',
    workerRefusal: true,
    configPin: PIN,
    events: [
      event(
        runId,
        14,
        'tool.completed',
        'tool_pipeline',
        {
          seq,
          tool: 'bench.noop',
          version: 'v1',
          status: 'succeeded',
          artifactIds: [],
          externalId: null,
          resolvedBy: null,
          activityAttempt: 1,
        },
        [`tool-${seq}`, `tool-${seq}#1`],
      ),
      event(
        runId,
        15,
        'model.started',
        'model_gateway',
        { callSeq: n + 1, purpose: 'decide', modelRoute: 'scripted/bench', toolKeys: ['bench.noop@v1'] },
        [`model-${n + 1}`, `model-${n + 1}#1`],
      ),
    ],
  };
  return { tool, model };
}

/** The third format of a tool call, as the tool port sends it (the header stored or not). */
function toolV3(input: ToolCallInput, stored: boolean, calls: CallDefaults = CALLS): CompactToolInputV3 {
  const events = packEventsV3(input.events, {
    stored: () => stored,
    derive: toolCallDerivationV3(input),
    calls,
  });
  const header = headerOfV3(input.events[0]!, calls);
  return compactToolInputV3({ ...input, events }, input.runId, argsDigestOf, header);
}

function modelV3(input: ModelCallInput, stored: boolean, calls: CallDefaults = CALLS): CompactModelInputV3 {
  const events = packEventsV3(input.events, {
    stored: () => stored,
    derive: modelCallDerivation(input),
    calls,
  });
  return compactModelInputV3({ ...input, events }, input.runId, headerOfV3(input.events[0]!, calls));
}

/** The second format of the same calls, completed as `runToolV2` and `callModelV2` complete them. */
function toolV2(input: ToolCallInput, stored: boolean) {
  const events = packEventsByRef(input.events, { stored: () => stored, derive: toolCallDerivation(input) });
  return completeToolInput(
    compactToolInput({ ...input, events }, input.runId, argsDigestOf),
    input.runId,
    sha256Digest,
  );
}

function modelV2(input: ModelCallInput, stored: boolean) {
  const events = packEventsByRef(input.events, { stored: () => stored, derive: modelCallDerivation(input) });
  return completeModelInput(compactModelInput({ ...input, events }, input.runId), input.runId);
}

export { PIN, goalStep, toolV3, modelV3, toolV2, modelV2 };
