import type { InputGuardrail, OutputGuardrail } from '../guardrails/index.js';
import type { RunFeatures } from './run-features.js';
import type { EvaluatorRegistry } from '../completion/index.js';
import type { Policy, PolicySubject } from '../policy/index.js';
import type { ModelRoutePlan } from '../../contract/model-routes.js';
import type { BundlePin } from '../../contract/bundles.js';
import type { GateAuthorization } from './human-gate.js';
import type { RunnerPorts } from './ports.js';
import type { Profile } from './profile.js';
import type { CarriedWait } from './carried-wait.js';
import type { RunState } from './run-state.js';

/** What a host gives the {@link Runner}: the run's state, its ports and everything decided at its start. */
export interface RunnerOptions {
  readonly state: RunState;
  readonly ports: RunnerPorts;
  readonly policy: Policy;
  readonly profile: Profile;
  readonly evaluators: EvaluatorRegistry;
  readonly task: Readonly<Record<string, unknown>>;
  readonly approvalTimeoutSeconds: number;
  /** Tells a cancellation (Temporal's CancelledFailure) apart from other errors. */
  readonly isCancellation: (err: unknown) => boolean;
  /** True once the wall-clock deadline timer fired (its cancellation then means budget exhaustion). */
  readonly deadlineReached?: () => boolean;
  /**
   * True once the host cancelled the run itself (a Temporal workflow cancellation), so a graph node's
   * `cancelled` turns on as for `cancelRun`. Absent (runs before `agent-run-config-pin-v1`): only
   * `cancelRun` counts.
   */
  readonly hostCancelled?: () => boolean;
  /** Input and output guardrails; absent: none (histories from before them replay unchanged). */
  readonly guardrails?: { readonly input: InputGuardrail; readonly output: OutputGuardrail };
  /** True when this runner continues a run carried over by continue-as-new. */
  readonly resumed?: boolean;
  /**
   * The behaviours the run takes only when its host says so (run-features.ts): a Temporal host
   * answers each with its `patched()` id where the runner asks. Absent: `IN_MEMORY_FEATURES`.
   */
  readonly features?: RunFeatures;
  /**
   * Signed decisions and authorization rules (docs/authorization.md); obligations are enforced before
   * dispatch. Absent: histories from before them replay unchanged (decisions name a free actor).
   */
  readonly authorization?: GateAuthorization;
  /** What the previous generation's gate carried when it continued as new in the middle of a wait. */
  readonly carriedWait?: CarriedWait;
  /** The facts' versions the previous generation carried (checked; see fact-versions.ts). */
  readonly carriedFactVersions?: Readonly<Record<string, number>>;
  /** The run's tenant and user (from its input): in `run.started` and every policy request. */
  readonly subject?: PolicySubject;
  /**
   * The model routes the run pinned at its start (docs/models.md): a route per purpose, each with its
   * fallbacks. Absent: every call goes to `versions.modelRoute`, with no fallback.
   */
  readonly modelRoutes?: ModelRoutePlan;
  /**
   * The control-plane bundles the run pinned (docs/control-plane.md): in `run.created.bundles`.
   * Absent: the worker that served the start had no rollout config.
   */
  readonly bundles?: BundlePin;
  /** The profile instructions of the run's pinned prompt bundle ({@link RunContext.instructions}). */
  readonly instructions?: string;
  /**
   * The event envelope of `agent-run-event-envelope-v1` (docs/events.md), decided once at the start:
   * `traceId` (the run's OpenTelemetry trace id when tracing is on, else the run id), producer and
   * classification from the event catalogue, `model.started`, `model.failed` and `run.paused`.
   * Absent: the envelope of runs from before it (trace id = run id, producer `runner`).
   */
  readonly eventEnvelope?: { readonly traceId: string };
}
