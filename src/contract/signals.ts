import { z } from 'zod';
import { builtOnFirstUse } from './built-on-first-use.js';

/**
 * The operator contract: signal names and payloads (docs/signals.md). Fixed names; payloads are
 * validated, and a malformed, stale, forged or repeated signal changes nothing and is recorded as a
 * rejected event.
 */
export const SIGNAL_NAMES = {
  approve: 'approve',
  reject: 'reject',
  reconcile: 'reconcile',
  provideInput: 'provideInput',
  cancelRun: 'cancelRun',
  /** A customer's own confirmation of an action (obligation `confirm.user.*`); never an approval. */
  confirm: 'confirm',
  /**
   * An approver's question instead of a decision (seed 004's `request_more_info`): the run asks its
   * requester, then the action comes back for a decision. Never an approval.
   */
  requestMoreInfo: 'requestMoreInfo',
} as const;

/** The decision signals by name. */
export type DecisionSignalName = (typeof SIGNAL_NAMES)[keyof typeof SIGNAL_NAMES];

/**
 * The update that carries the same decisions as the signals, answered at once: `{ signal, payload }`
 * in, a {@link DecisionOutcome} out (docs/signals.md).
 */
export const UPDATE_NAMES = { decide: 'decide' } as const;

/**
 * The failure type of a `decide` update its validator refused before admitting it (nothing in the
 * run's history): the refused {@link DecisionOutcome} is the failure's first detail.
 */
export const DECISION_REFUSED = 'decision.refused';

/** Who decided, as the signal names them. */
const actor = builtOnFirstUse(() => z.string().min(1).max(200));
/**
 * A signed decision token (docs/authorization.md): a compact JWS (EdDSA) over the workflow id, the
 * action id, the argument digest, the decision, the payload digest, the principal, issued-at and
 * expiry. Required by runs that check decisions; ignored by runs started before them.
 */
const token = builtOnFirstUse(() => z.string().min(1).max(4_096));

/** Built on first use (see builtOnFirstUse). */
export const ApproveSignalSchema = z.lazy(() =>
  z
    .object({
      actionId: z.string().min(1).max(200),
      actor: actor(),
      reason: z.string().max(2000).optional(),
      token: token().optional(),
    })
    .strict(),
);
/** Built on first use (see builtOnFirstUse). */
export const RejectSignalSchema = z.lazy(() =>
  z
    .object({
      actionId: z.string().min(1).max(200),
      actor: actor(),
      reason: z.string().min(1).max(2000),
      token: token().optional(),
    })
    .strict(),
);
/**
 * An approver's question about the pending action (`request_more_info`). Built on first use (see
 * builtOnFirstUse).
 */
export const RequestMoreInfoSignalSchema = z.lazy(() =>
  z
    .object({
      actionId: z.string().min(1).max(200),
      actor: actor(),
      question: z.string().min(1).max(2000),
      token: token().optional(),
    })
    .strict(),
);
/** A customer's confirmation: same shape as an approval, its own decision kind. */
export const ConfirmSignalSchema = ApproveSignalSchema;
/** Built on first use (see builtOnFirstUse). */
export const ReconcileSignalSchema = z.lazy(() =>
  z
    .object({
      invocationSeq: z.number().int().nonnegative(),
      outcome: z.enum(['succeeded', 'failed', 'not_applied']),
      actor: actor(),
      /**
       * The id the external system gave the effect (a refund id, a commit sha), as the operator found it.
       * Only with `succeeded`: it becomes the invocation's external id, so a later independent
       * verification of that id can stand in for the observation the lost activity never returned.
       */
      externalId: z.string().min(1).max(200).optional(),
      evidence: z.record(z.string(), z.unknown()).optional(),
      token: token().optional(),
    })
    .strict()
    .refine((s) => s.externalId === undefined || s.outcome === 'succeeded', {
      message: 'externalId is only allowed with outcome "succeeded"',
      path: ['externalId'],
    }),
);
/** Built on first use (see builtOnFirstUse). */
export const ProvideInputSignalSchema = z.lazy(() =>
  z
    .object({
      slot: z.string().min(1).max(200),
      value: z.string().max(10_000),
      actor: actor(),
      token: token().optional(),
    })
    .strict(),
);
/** Built on first use (see builtOnFirstUse). */
export const CancelRunSignalSchema = z.lazy(() =>
  z.object({ actor: actor(), reason: z.string().min(1).max(2000), token: token().optional() }).strict(),
);

/**
 * The payload of the `decide` update: which decision signal, and its payload. Built on first use (see
 * builtOnFirstUse).
 */
export const DecideUpdateSchema = z.lazy(() =>
  z
    .object({
      signal: z.enum([
        'approve',
        'reject',
        'confirm',
        'reconcile',
        'provideInput',
        'cancelRun',
        'requestMoreInfo',
      ]),
      payload: z.unknown(),
    })
    .strict(),
);
export type DecideUpdate = z.infer<typeof DecideUpdateSchema>;

/** What the `decide` update answers: accepted, or refused with a reason code. */
export interface DecisionOutcome {
  readonly accepted: boolean;
  /** `decision.accepted`, or the refusal's reason code (`decision.*`, `signal.*`). */
  readonly code: string;
  readonly message: string;
  readonly actionId?: string;
  /** The verified principal, when the token verified. */
  readonly principal?: string;
  /** Distinct approvals the action has and needs, for approvals. */
  readonly approvals?: { readonly have: number; readonly need: number };
}

export type ApproveSignal = z.infer<typeof ApproveSignalSchema>;
export type RejectSignal = z.infer<typeof RejectSignalSchema>;
export type ReconcileSignal = z.infer<typeof ReconcileSignalSchema>;
export type ProvideInputSignal = z.infer<typeof ProvideInputSignalSchema>;
export type CancelRunSignal = z.infer<typeof CancelRunSignalSchema>;
export type ConfirmSignal = z.infer<typeof ConfirmSignalSchema>;
export type RequestMoreInfoSignal = z.infer<typeof RequestMoreInfoSignalSchema>;
