import { z } from 'zod';
import {
  CancelRunSignalSchema,
  ReconcileSignalSchema,
  type CancelRunSignal,
} from '../../contract/signals.js';
import { jsonBoundsProblem, TOOL_ARGUMENT_BOUNDS } from '../../contract/json-bounds.js';
import type { Mailbox, Waiting } from './decision-intake.js';

/**
 * What a run that waits for a person hands to its next generation when it continues as new in the
 * middle of the wait (the history reached its bound, see `WAIT_HISTORY_BOUND_BYTES`). The pending
 * action and the human request themselves travel in the run state; this is the gate's part:
 * - `waiting`: signed runs, the action waited on with its arguments (the rules are checked on them);
 * - `mailbox`: a decision accepted after the wait had ended for continue-as-new (it is taken by the
 *   next generation's wait, never lost);
 * - `cancel`: a cancellation accepted then (the next generation is cancelled at once).
 */
export interface CarriedWait {
  readonly schemaVersion: 1;
  readonly waiting?: Waiting;
  readonly mailbox?: Mailbox;
  readonly cancel?: CancelRunSignal;
}

const Text = (max: number) => z.string().max(max);

/**
 * The carried form, checked when a generation starts (bounded: the arguments as a tool's). Built on
 * first use (see builtOnFirstUse).
 */
export const CarriedWaitSchema = z.lazy(() => {
  const WaitingSchema = z
    .object({
      action: z
        .object({
          actionId: z.string().min(1).max(200),
          tool: Text(200).optional(),
          version: Text(40).optional(),
          argsDigest: Text(80).optional(),
          args: z.record(z.string(), z.unknown()).optional(),
        })
        .strict(),
      customer: z.boolean(),
      dispatch: z.boolean(),
    })
    .strict();

  const HumanDecisionSchema = z.union([
    z.object({ decision: z.literal('approved'), actor: Text(200), reason: Text(2000).optional() }).strict(),
    z
      .object({ decision: z.literal('rejected'), actor: Text(200), reason: Text(2000), code: Text(100) })
      .strict(),
  ]);

  const MailboxSchema = z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('decision'), decision: HumanDecisionSchema }).strict(),
    z.object({ kind: z.literal('reconcile'), signal: ReconcileSignalSchema }).strict(),
    z.object({ kind: z.literal('input'), value: Text(10_000), actor: Text(200) }).strict(),
  ]);

  return z
    .object({
      schemaVersion: z.literal(1),
      waiting: WaitingSchema.optional(),
      mailbox: MailboxSchema.optional(),
      cancel: CancelRunSignalSchema.optional(),
    })
    .strict()
    .superRefine((v, ctx) => {
      const problem = jsonBoundsProblem(v.waiting?.action.args ?? {}, TOOL_ARGUMENT_BOUNDS);
      if (problem !== undefined)
        ctx.addIssue({ code: 'custom', path: ['waiting', 'action', 'args'], message: `args ${problem}` });
    });
});

function withoutToken<T extends { readonly token?: string }>(value: T): T {
  const { token: _verified, ...rest } = value;
  return rest as T;
}

/** The gate's part to carry, or undefined when there is nothing (no wait, no decision, no cancel). */
export function carriedWaitOf(parts: {
  readonly waiting: Waiting | undefined;
  readonly mailbox: Mailbox | undefined;
  readonly cancel: CancelRunSignal | undefined;
}): CarriedWait | undefined {
  const { waiting, mailbox, cancel } = parts;
  if (waiting === undefined && mailbox === undefined && cancel === undefined) return undefined;
  // A decision token was verified when the decision was accepted: it is not carried.
  const carriedMailbox =
    mailbox?.kind === 'reconcile' ? { ...mailbox, signal: withoutToken(mailbox.signal) } : mailbox;
  return {
    schemaVersion: 1,
    ...(waiting !== undefined ? { waiting } : {}),
    ...(carriedMailbox !== undefined ? { mailbox: carriedMailbox } : {}),
    ...(cancel !== undefined ? { cancel: withoutToken(cancel) } : {}),
  };
}
