import type { Artifact } from '../../contract/artifact.js';
import type { Observation } from '../../contract/observation.js';
import type { ToolDefinition } from '../../contract/tool.js';
import type { DataClassification } from './agent-event.js';
import type { ModelDecision, ModelMessageInput, ModelPurpose } from './ports.js';

/** What a profile asks the model. */
export interface ModelRequest {
  readonly messages: readonly ModelMessageInput[];
  /** Offer these tools (already policy-filtered by {@link RunContext.visibleTools}); default none. */
  readonly tools?: readonly ToolDefinition[];
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

export interface ConfirmRequest {
  readonly decisionType: string;
  readonly summary: string;
  readonly verifiedFacts?: readonly string[];
  readonly policyEvidence?: readonly string[];
  readonly riskReasons?: readonly string[];
  /** The tool call this confirmation is bound to, if any. */
  readonly action?: {
    readonly tool: string;
    readonly version: string;
    readonly args: Readonly<Record<string, unknown>>;
  };
}

export type HumanDecision =
  | { readonly decision: 'approved'; readonly actor: string; readonly reason?: string }
  | { readonly decision: 'rejected'; readonly actor: string; readonly reason: string; readonly code: string };

export interface ToolOptions {
  /** Pinned version; default the highest version of that name in the run's snapshot. */
  readonly version?: string;
  /** The model's proposal id, to link the observation back. */
  readonly proposalId?: string;
}

/**
 * The surface profiles program against. Every call goes through the runner: schema check, policy,
 * budgets, confirmation, durable records. A rejected call returns an observation with status
 * `rejected` (the model can read why); it never throws for untrusted input.
 */
export interface RunContext {
  readonly runId: string;
  /** The task the run was started with. */
  readonly task: Readonly<Record<string, unknown>>;
  /**
   * What the profile handed to {@link RunContext.checkpoint} before the run continued as new, or
   * undefined in the first generation. A profile resumes from it.
   */
  readonly resume: Readonly<Record<string, unknown>> | undefined;
  /**
   * A safe point between steps (nothing pending). The runner may continue the run as new here,
   * carrying `resumeState` (bounded JSON) into the next generation; then this call does not return.
   */
  checkpoint(resumeState: Record<string, unknown>): Promise<void>;
  model(purpose: ModelPurpose, request: ModelRequest): Promise<ModelDecision>;
  tool(name: string, args: unknown, options?: ToolOptions): Promise<Observation>;
  /** Tools the policy lets the model see now (presentation point), optionally restricted to names. */
  visibleTools(names?: readonly string[]): ToolDefinition[];
  confirm(request: ConfirmRequest): Promise<HumanDecision>;
  askHuman(request: ConfirmRequest): Promise<HumanDecision>;
  askInput(slot: string, prompt: string): Promise<string>;
  emit(type: string, data: Record<string, unknown>, classification?: DataClassification): void;
  /** Record a verified fact the policy may rely on. Only facts derived from observed/verified artifacts. */
  recordFact(name: string, value: string | number | boolean, evidenceArtifactId: string): void;
  /** A profile-produced artifact: always `model` provenance (anything else is refused). */
  addModelArtifact(artifact: Omit<Artifact, 'provenance'> & { provenance?: string }): Artifact;
  artifact(id: string): Artifact | undefined;
  /** Mark a node/step current (graph profiles); recorded in state and events. */
  enterStep(stepId: string): void;
  completeStep(stepId: string): void;
  sleep(seconds: number): Promise<void>;
}
