/**
 * How much of a run the run service reads to answer `/v1/runs/:id/verification` and `/bundle`
 * (docs/api.md, "Proof endpoints"): a run over one of them is refused with `proof.too_large` naming the
 * limit, and verified with the CLI instead (`harness verify <runId>`, `harness export <runId>
 * --bundle <file>`), which has no cap.
 */
export interface ProofLimits {
  /** Most stored events. */
  readonly maxEvents: number;
  /** Most bytes of the stored events, invocations and artifacts together, and of the Temporal history. */
  readonly maxBytes: number;
}

/** The run service's default caps. */
export const DEFAULT_PROOF_LIMITS: ProofLimits = { maxEvents: 20_000, maxBytes: 32 * 1024 * 1024 };

/** The reason code of a run over a {@link ProofLimits} cap. */
export const PROOF_TOO_LARGE = 'proof.too_large';
