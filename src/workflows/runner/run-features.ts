/**
 * The behaviours a run takes only when its host says so: each was added after runs were recorded
 * without it, so a Temporal host answers with `patched()` (or the start memo's features) at the moment
 * the runner asks, and an old history replays down its old path. One question, one place:
 * `features.on('dataTaint')`. The runner's ports stay pure I/O.
 */
export const RUN_FEATURES = [
  /** A write attempt settled `not_applied` (or failed before its executor ran) may be tried again. */
  'writeRecovery',
  /** When every automatic attempt of an approved write ended without effect, a person is asked. */
  'writeExhaustionToPerson',
  /**
   * A lost write attempt settled `not_applied` (evidence store or reconciler) is tried again
   * automatically only when its definition is `idempotentByKey`; otherwise a person is asked first.
   */
  'writeRetryNeedsIdempotency',
  /** Decision payloads and tool arguments over their bounds are refused. */
  'boundedValues',
  /** Graph node checks (`RunContext.graphNodeChecks`). */
  'graphNodeChecks',
  /** A write carrying tainting data a tool returned earlier is held for a person. */
  'dataTaint',
  /** A blocked output may be composed again. */
  'outputRetry',
  /** Observed object ids are exempt from the output's personal-data checks. */
  'trustedIdentifiers',
  /** A response over the guardrail scan limit is blocked. */
  'outputTextLimit',
  /** A failed model call takes a fallback of its pinned route. */
  'modelFallback',
  /** Malformed or unoffered tool calls come back to the model as tool errors (when its profile asks). */
  'invalidToolCalls',
  /** Each `policy.decided` event names the rules that decided: the pinned policy bundle, or the code. */
  'decisionRules',
  /** Tool calls carry their pinned definition's digest; a worker with another definition refuses writes. */
  'toolDefinitionPin',
  /** `model.completed` names the context package the call sent. */
  'modelContextRef',
  /** An approver may answer a decision request with a question to the requester (`requestMoreInfo`). */
  'requestMoreInfo',
  /** Reconcile and input requests expire, with a recorded outcome (docs/signals.md, "Expiry"). */
  'humanRequestExpiry',
  /** Facts carry a version; verified facts are shown as `fact://<name>@v<version>`. */
  'versionedFacts',
  /** Model calls ask for the seed's context priority order (`contextOrder: 'priority'`). */
  'contextPriority',
  /** A read declared `fast` that its policy allowed without asking runs as a local activity. */
  'fastPath',
  /**
   * Node and step contracts (docs/runner.md, "Step contracts"): graph nodes get a deadline they fail
   * on (`graph.node_deadline`), goal model turns and tool calls carry step and attempt ids, and a
   * step that will be tried again is recorded `failed_retryable`.
   */
  'stepContracts',
  /** A budget end after applied writes composes the customer's answer and says what was delivered. */
  'deliveredOutcome',
  /** Workers refuse tool and model calls they cannot serve as pinned; the run reschedules them. */
  'workerRefusal',
  /** A finished run's last event is `run.sealed`, whose signed head is the run's seal (run-seal.ts). */
  'runSeal',
  /**
   * The run pins its configuration run-scoped (`configPin` in every call, worker.config_changed
   * refusals rescheduled) and records `model.worker_refused` when workers refused a model call; a
   * graph node's `cancelled` also reflects a workflow cancellation (the Temporal host's answer).
   */
  'configPin',
] as const;

export type RunFeature = (typeof RUN_FEATURES)[number];

/**
 * Answers whether a run takes a behaviour. Asked lazily, at the moment the behaviour matters, and
 * possibly many times: a Temporal host's answer may record a marker the first time (so it must be asked
 * exactly where the runner always asked it), later answers are the same. Never throws.
 */
export interface RunFeatures {
  on(feature: RunFeature): boolean;
}

/** Every feature on: what a test of today's behaviour passes. */
export const ALL_FEATURES: RunFeatures = { on: () => true };

/**
 * What a host without a history (in memory, unit tests) gets when it passes no features: the output
 * guardrail's trusted-identifier exemption and text limit (on wherever they were not asked), every
 * other behaviour off, as such hosts had them before the features object.
 */
export const IN_MEMORY_FEATURES: RunFeatures = featuresOf({
  trustedIdentifiers: true,
  outputTextLimit: true,
});

/**
 * Features from answers: a boolean (decided once, e.g. at the run's start) or a question asked each
 * time (`() => patches.on(ID)`). A feature not named is off.
 */
export function featuresOf(answers: Partial<Record<RunFeature, boolean | (() => boolean)>>): RunFeatures {
  return {
    on(feature) {
      const answer = answers[feature];
      return typeof answer === 'function' ? answer() : answer === true;
    },
  };
}
