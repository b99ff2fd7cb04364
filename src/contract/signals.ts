import { z } from 'zod';

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
} as const;

const Actor = z.string().min(1).max(200);

export const ApproveSignalSchema = z
  .object({ actionId: z.string().min(1).max(200), actor: Actor, reason: z.string().max(2000).optional() })
  .strict();
export const RejectSignalSchema = z
  .object({ actionId: z.string().min(1).max(200), actor: Actor, reason: z.string().min(1).max(2000) })
  .strict();
export const ReconcileSignalSchema = z
  .object({
    invocationSeq: z.number().int().nonnegative(),
    outcome: z.enum(['succeeded', 'failed', 'not_applied']),
    actor: Actor,
    /**
     * The id the external system gave the effect (a refund id, a commit sha), as the operator found it.
     * Only with `succeeded`: it becomes the invocation's external id, so a later independent
     * verification of that id can stand in for the observation the lost activity never returned.
     */
    externalId: z.string().min(1).max(200).optional(),
    evidence: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((s) => s.externalId === undefined || s.outcome === 'succeeded', {
    message: 'externalId is only allowed with outcome "succeeded"',
    path: ['externalId'],
  });
export const ProvideInputSignalSchema = z
  .object({ slot: z.string().min(1).max(200), value: z.string().max(10_000), actor: Actor })
  .strict();
export const CancelRunSignalSchema = z.object({ actor: Actor, reason: z.string().min(1).max(2000) }).strict();

export type ApproveSignal = z.infer<typeof ApproveSignalSchema>;
export type RejectSignal = z.infer<typeof RejectSignalSchema>;
export type ReconcileSignal = z.infer<typeof ReconcileSignalSchema>;
export type ProvideInputSignal = z.infer<typeof ProvideInputSignalSchema>;
export type CancelRunSignal = z.infer<typeof CancelRunSignalSchema>;
