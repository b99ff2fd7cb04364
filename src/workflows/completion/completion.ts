import { z } from 'zod';
import { sharedAcrossRuns } from '../../contract/shared-across-runs.js';
import type { Artifact } from '../../contract/artifact.js';
import type { ToolEffect } from '../../contract/tool.js';

/** One recorded tool invocation of the run, as the runner knows it from the evidence store. */
export interface InvocationRecord {
  seq: number;
  tool: string;
  version: string;
  effect: ToolEffect;
  /** Observation status (`succeeded`, `failed_terminal`, ...); only `succeeded` invocations vouch for artifacts. */
  status: string;
  externalId?: string;
  /** Artifacts recorded with this invocation's result by its trusted executor. */
  artifactIds: readonly string[];
  /** Who settled an unknown outcome: `evidence_store`, `reconciler` or `operator:<actor>`. */
  resolvedBy?: string;
}

/** What a completion evaluator judges. Built by the runner from recorded evidence, never from model text alone. */
export interface CompletionInput {
  /** What the profile interpreted as the final answer. */
  finalOutput: unknown;
  artifacts: readonly Artifact[];
  invocations: readonly InvocationRecord[];
  /** Parameters from the trusted profile contract. */
  params: Readonly<Record<string, unknown>>;
}

/** The outcome of one evaluation; serialisable for the run result and its events. */
export interface CompletionVerdict {
  /** `name/version` of the evaluator. */
  evaluator: string;
  passed: boolean;
  /** Stable codes from {@link CompletionReasonCodes}. */
  reasonCodes: string[];
  /** Artifacts the verdict rests on (on pass) or that were examined and found wanting (on fail). */
  evidenceArtifactIds: string[];
  /** One short human-readable sentence. */
  summary: string;
}

/**
 * A completion evaluator: pure, synchronous and deterministic (it runs in the workflow sandbox).
 * `evaluate` never throws for bad evidence or bad params; it returns a failing verdict instead.
 */
export interface CompletionEvaluator {
  readonly name: string;
  readonly version: string;
  evaluate(input: CompletionInput): CompletionVerdict;
  /**
   * Optional early check of contract params, used when a profile is registered.
   * @throws CompletionError `completion.params_invalid` when the params are unusable.
   */
  checkParams?(params: Readonly<Record<string, unknown>>): void;
}

/** A goal profile's choice of evaluator and its trusted params. Built once per worker (see sharedAcrossRuns). */
export const CompletionContractSchema = z.lazy(
  sharedAcrossRuns('core/completion/completion#CompletionContractSchema', () =>
    z
      .object({
        evaluator: z
          .object({ name: z.string().min(1).max(100), version: z.string().min(1).max(50) })
          .strict(),
        params: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
  ),
);
export type CompletionContract = z.infer<typeof CompletionContractSchema>;

/** `name/version` of an evaluator, as written into verdicts. */
export function evaluatorId(evaluator: Pick<CompletionEvaluator, 'name' | 'version'>): string {
  return `${evaluator.name}/${evaluator.version}`;
}
