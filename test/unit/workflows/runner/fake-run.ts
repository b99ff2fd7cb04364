import type { BundlePin } from '../../../../src/contract/bundles.js';
import { createInputGuardrail, createOutputGuardrail } from '../../../../src/workflows/guardrails/index.js';
import type { GateAuthorization } from '../../../../src/workflows/runner/human-gate.js';
import type { CarriedWait } from '../../../../src/workflows/runner/carried-wait.js';
import { createInitialRunState } from '../../../../src/workflows/runner/initial-state.js';
import {
  createDefaultEvaluatorRegistry,
  type CompletionContract,
} from '../../../../src/workflows/completion/index.js';
import type { ToolDefinition } from '../../../../src/contract/tool.js';
import { AllowAllPolicy, type Policy } from '../../../../src/workflows/policy/index.js';
import type { AgentEvent } from '../../../../src/contract/agent-event.js';
import { DEFAULT_LIMITS, type BudgetLimits } from '../../../../src/workflows/runner/budget.js';
import type {
  ModelCallInput,
  ModelDecision,
  RunnerPorts,
  ToolActivityOutcome,
  ToolCallInput,
  ToolCallResult,
  WriteResolution,
} from '../../../../src/workflows/runner/ports.js';
import type { Profile, ProfileResult } from '../../../../src/workflows/runner/profile.js';
import type { RunContext } from '../../../../src/workflows/runner/run-context.js';
import type { RunState } from '../../../../src/workflows/runner/run-state.js';
import { featuresOf, type RunFeatures } from '../../../../src/workflows/runner/run-features.js';
import { Runner } from '../../../../src/workflows/runner/runner.js';

/** Two tools for the runner's unit tests: one read, one write (closed schemas). */
export const READ_TOOL: ToolDefinition = {
  name: 'demo.read',
  version: 'v1',
  description: 'Read a thing by id.',
  effect: 'read',
  parameters: {
    type: 'object',
    properties: { id: { type: 'string', minLength: 1, maxLength: 20 } },
    required: ['id'],
    additionalProperties: false,
  },
};
export const WRITE_TOOL: ToolDefinition = {
  name: 'demo.write',
  version: 'v1',
  description: 'Write an amount.',
  effect: 'write',
  parameters: {
    type: 'object',
    properties: { amount: { type: 'integer', minimum: 1 } },
    required: ['amount'],
    additionalProperties: false,
  },
};

const START = Date.parse('2026-01-01T00:00:00.000Z');

/** A model decision with defaults (no tool calls, zero usage). */
export function decision(partial: Partial<ModelDecision> = {}): ModelDecision {
  return {
    text: 'done',
    toolCalls: [],
    stopReason: 'end_turn',
    usage: { inputTokens: 10, outputTokens: 5 },
    costUsd: 0,
    providerModel: 'fake',
    replayed: false,
    ...partial,
  };
}

/** A succeeded tool result for `input` with an observed artifact (read) or observed action (write). */
export function succeeded(input: ToolCallInput, extra: Partial<ToolCallResult> = {}): ToolActivityOutcome {
  return {
    kind: 'completed',
    result: {
      status: 'succeeded',
      output: { seq: input.seq, args: input.args },
      artifacts: [
        {
          id: `${input.runId}/${input.seq}/thing`,
          type: 'thing',
          schemaVersion: '1',
          provenance: 'observed',
          externalId: `X${input.seq}`,
        },
      ],
      externalId: `X${input.seq}`,
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:00.000Z',
      ...extra,
    },
  };
}

/**
 * In-memory {@link RunnerPorts}: the unit boundary of the Runner. Records every call. Events count as
 * stored ({@link FakePorts.events}, in arrival order) when the activity that carried them ran: a flush,
 * a completed or failed activity, a lost-write resolution; not a lost or cancelled tool activity
 * (it may never have started) nor a model call that threw.
 */
export class FakePorts implements RunnerPorts {
  readonly tools: readonly ToolDefinition[];
  clock = START;
  readonly modelCalls: ModelCallInput[] = [];
  readonly toolCalls: ToolCallInput[] = [];
  /** The fast-path timeout each tool call was dispatched with (undefined: a regular activity). */
  readonly fastMs: (number | undefined)[] = [];
  readonly resolutions: ToolCallInput[] = [];
  readonly events: AgentEvent[] = [];
  readonly waits: { timeoutMs: number | undefined }[] = [];
  readonly sleeps: number[] = [];
  publishes = 0;
  waiting = false;
  private expire = false;

  constructor(
    tools: readonly ToolDefinition[],
    readonly onModel: (input: ModelCallInput, n: number) => ModelDecision,
    readonly onTool: (input: ToolCallInput) => ToolActivityOutcome,
    readonly onResolve: (input: ToolCallInput) => WriteResolution,
  ) {
    this.tools = tools;
  }

  now(): string {
    return new Date(this.clock).toISOString();
  }

  async callModel(input: ModelCallInput): Promise<ModelDecision> {
    await Promise.resolve();
    this.modelCalls.push(input);
    this.clock += 1000;
    const answer = this.onModel(input, this.modelCalls.length); // a throwing model stored nothing
    this.events.push(...input.events);
    return answer;
  }

  async callTool(input: ToolCallInput, options?: { fastMs?: number }): Promise<ToolActivityOutcome> {
    await Promise.resolve();
    this.toolCalls.push(input);
    this.fastMs.push(options?.fastMs);
    this.clock += 1000;
    const outcome = this.onTool(input);
    // Worst case: a lost or cancelled activity may never have started, so its events were not stored.
    if (outcome.kind === 'completed' || outcome.kind === 'failed') this.events.push(...input.events);
    return outcome;
  }

  async resolveLostInvocation(input: ToolCallInput): Promise<WriteResolution> {
    await Promise.resolve();
    this.resolutions.push(input);
    this.events.push(...input.events);
    return this.onResolve(input);
  }

  /** The history's size as `historyOverWaitBound` reports it: set it to say the bound is reached. */
  historyOverBound: number | undefined = undefined;
  historyOverWaitBound(): number | undefined {
    return this.historyOverBound;
  }

  flushEvents(events: readonly AgentEvent[]): Promise<void> {
    this.events.push(...events);
    return Promise.resolve();
  }

  async waitUntil(ready: () => boolean, timeoutMs?: number): Promise<boolean> {
    this.waits.push({ timeoutMs });
    this.waiting = true;
    try {
      for (;;) {
        if (ready()) return true;
        if (this.expire) {
          this.expire = false;
          this.clock += timeoutMs ?? 0;
          return false;
        }
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      this.waiting = false;
    }
  }

  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.clock += ms;
    return Promise.resolve();
  }

  publish(): void {
    this.publishes += 1;
  }

  /** Let the current wait time out (as a Temporal timer would). */
  expireWait(): void {
    this.expire = true;
  }

  /** Resolves once the runner is inside `waitUntil`. */
  async untilWaiting(): Promise<void> {
    for (let i = 0; i < 10_000 && !this.waiting; i++) await new Promise((r) => setImmediate(r));
    if (!this.waiting) throw new Error('the runner never started waiting');
  }

  /** Let pending microtasks and a few macrotasks run (a signal that changes nothing stays without effect). */
  async settle(): Promise<void> {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  }

  typesOf(): string[] {
    return this.events.map((e) => e.type);
  }

  ofType(type: string): AgentEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}

export interface FakeRunOptions {
  /** The inline profile's run (required unless `profile` is given). */
  readonly run?: (ctx: RunContext) => Promise<ProfileResult>;
  readonly policy?: Policy;
  readonly limits?: Partial<BudgetLimits>;
  readonly tools?: readonly ToolDefinition[];
  readonly profileTools?: readonly string[];
  readonly completion?: CompletionContract;
  readonly model?: (input: ModelCallInput, n: number) => ModelDecision;
  readonly tool?: (input: ToolCallInput) => ToolActivityOutcome;
  readonly resolve?: (input: ToolCallInput) => WriteResolution;
  readonly approvalTimeoutSeconds?: number;
  /** A profile to run instead of the inline one (`run`, `profileTools`, `completion` are then unused). */
  readonly profile?: Profile;
  /** Run the default input and output guardrails (as `agentRun` does behind its patch). */
  readonly guardrails?: boolean;
  /** The answer to `outputRetryEnabled` (the workflow's patch); default true. */
  readonly outputRetryEnabled?: boolean;
  /** Change the fresh state before the Runner sees it (e.g. usage carried over a continue-as-new). */
  readonly prepareState?: (state: RunState) => void;
  /** Signed decisions and enforced obligations (as `agentRun` does behind its patch). */
  readonly authorization?: GateAuthorization;
  /** Write recovery (as `agentRun` does behind its patch); default false. */
  readonly writeRecovery?: boolean;
  /** A person is asked once a write's attempts ran out (as `agentRun` does behind its patch); default false. */
  readonly writeExhaustion?: boolean;
  /** A non-idempotent write settled not applied waits for a person (behind its patch); default false. */
  readonly writeRetryNeedsIdempotency?: boolean;
  /** Graph node checks (as `agentRun` does behind its patch); default true. */
  readonly graphNodeChecks?: boolean;
  /** A generation carried over by continue-as-new (`ctx.resume` is the state's profile state). */
  readonly resumed?: boolean;
  /** What the previous generation's gate carried (a continue-as-new in the middle of a wait). */
  readonly carriedWait?: CarriedWait;
  /** The event envelope of `agent-run-event-envelope-v1`; absent: the envelope of older runs. */
  readonly eventEnvelope?: { readonly traceId: string };
  /** Invalid tool calls reported to the model (as `agentRun` does behind its patch); default false. */
  readonly invalidToolCalls?: boolean;
  /** Every feature answer at once (e.g. `ALL_FEATURES`), instead of the options above. */
  readonly features?: RunFeatures;
  /** The control-plane pin the run holds (`RunnerOptions.bundles`). */
  readonly bundles?: BundlePin;
}

/** The feature answers of a fake run: its options, with the defaults they document. */
function fakeFeatures(o: FakeRunOptions): RunFeatures {
  return featuresOf({
    writeRecovery: o.writeRecovery ?? false,
    writeExhaustionToPerson: o.writeExhaustion ?? false,
    writeRetryNeedsIdempotency: o.writeRetryNeedsIdempotency ?? false,
    boundedValues: true,
    graphNodeChecks: o.graphNodeChecks ?? true,
    outputRetry: o.outputRetryEnabled ?? true,
    trustedIdentifiers: true,
    outputTextLimit: true,
    invalidToolCalls: o.invalidToolCalls ?? false,
  });
}

export interface FakeRun {
  readonly runner: Runner;
  readonly ports: FakePorts;
  readonly state: RunState;
  readonly profile: Profile;
  /** Runs the profile to a terminal state. */
  execute(): Promise<RunState>;
}

/** A fresh state as `agentRun` builds it. */
export function freshState(limits: Partial<BudgetLimits> = {}): RunState {
  return createInitialRunState({
    runId: 'run-1',
    versions: {
      profile: 'test.profile@v1',
      policy: 'allow_all@v1',
      toolRegistryDigest: 'sha256:0',
      modelRoute: 'fake',
      configDigest: 'sha256:0',
    },
    limits: { ...DEFAULT_LIMITS, ...limits },
    startedAt: new Date(START).toISOString(),
  });
}

/** A Runner over {@link FakePorts} with an inline profile. */
export function fakeRun(o: FakeRunOptions): FakeRun {
  const tools = o.tools ?? [READ_TOOL, WRITE_TOOL];
  const ports = new FakePorts(
    tools,
    o.model ?? (() => decision()),
    o.tool ?? ((input) => succeeded(input)),
    o.resolve ?? (() => ({ kind: 'unknown' })),
  );
  const profile: Profile = o.profile ?? {
    name: 'test.profile',
    version: 'v1',
    kind: 'goal',
    completion: o.completion ?? { evaluator: { name: 'solution_delivered', version: 'v1' } },
    tools: o.profileTools ?? tools.map((t) => t.name),
    policies: { default: 'allow_all@v1' },
    run: o.run ?? (() => Promise.reject(new Error('fakeRun: give `run` or `profile`'))),
  };
  const state = freshState(o.limits);
  o.prepareState?.(state);
  const runner = new Runner({
    state,
    ports,
    policy: o.policy ?? new AllowAllPolicy(),
    profile,
    evaluators: createDefaultEvaluatorRegistry(),
    task: { message: 'hello' },
    approvalTimeoutSeconds: o.approvalTimeoutSeconds ?? 600,
    isCancellation: () => false,
    features: o.features ?? fakeFeatures(o),
    ...(o.authorization ? { authorization: o.authorization } : {}),
    ...(o.resumed ? { resumed: true } : {}),
    ...(o.carriedWait ? { carriedWait: o.carriedWait } : {}),
    ...(o.eventEnvelope ? { eventEnvelope: o.eventEnvelope } : {}),
    ...(o.bundles ? { bundles: o.bundles } : {}),
    ...(o.guardrails
      ? { guardrails: { input: createInputGuardrail(), output: createOutputGuardrail() } }
      : {}),
  });
  return { runner, ports, state, profile, execute: () => runner.execute(profile) };
}
