/**
 * One line of `harness verify`: which check, whether it passed, a stable reason code and a sentence
 * for a person. A check that could not be made (missing input) is a failure with its own code, never
 * a pass.
 */
export interface ProofCheck {
  readonly check: ProofCheckName;
  readonly ok: boolean;
  readonly code: string;
  readonly detail: string;
}

/** The checks of the verifier (docs/evidence-chain.md, "What the verifier checks"). */
export type ProofCheckName = 'chain' | 'writes' | 'artifacts' | 'decisions' | 'policy' | 'history';

/** A passing check. */
export function pass(check: ProofCheckName, code: string, detail: string): ProofCheck {
  return { check, ok: true, code, detail };
}

/** A failing check. */
export function fail(check: ProofCheckName, code: string, detail: string): ProofCheck {
  return { check, ok: false, code, detail };
}
