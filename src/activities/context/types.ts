import { z } from 'zod';

export const ContextKindSchema = z.enum([
  'instruction',
  'task_state',
  'conversation',
  'tool_fact',
  'retrieved_evidence',
  'memory',
]);
export type ContextKind = z.infer<typeof ContextKindSchema>;

/**
 * How far an item is trusted. Set by the harness from the item's origin, never from its content:
 * `system` (harness/business configuration), `verified` (observed by a tool and checked),
 * `untrusted` (anything a user, a document, a page or an unverified tool produced).
 */
export const ContextTrustSchema = z.enum(['system', 'verified', 'untrusted']);
export type ContextTrust = z.infer<typeof ContextTrustSchema>;

/** Access label of a context item: the data classification of its content (docs/context.md). */
export const ContextAccessSchema = z.enum(['public', 'internal', 'confidential', 'restricted']);
export type ContextAccess = z.infer<typeof ContextAccessSchema>;

export const ContextItemSchema = z
  .object({
    itemId: z.string().min(1),
    kind: ContextKindSchema,
    trust: ContextTrustSchema,
    /** Where the content came from, e.g. `order.read#3`, `policy:R001`, `msg:12`. */
    sourceRef: z.string().min(1),
    content: z.string(),
    /** Filled by the builder with a real token count; an input value is ignored. */
    tokenEstimate: z.number().int().nonnegative().optional(),
    /** ISO-8601 instant from which the item holds. Absent: always. */
    effectiveAt: z.iso.datetime({ offset: true }).optional(),
    /** ISO-8601 instant at which the item stops holding. Absent: never. */
    expiresAt: z.iso.datetime({ offset: true }).optional(),
    /** Higher first within its priority tier. Default 0. */
    priority: z.number().int().optional(),
    /**
     * Items of a model conversation (the model activity's request package): the message the item is
     * sent as. `assistant` items are the model's own earlier turns (with the tool calls it made);
     * `tool` items answer the call `toolCallId`. Absent: the item is a data block of the user turn.
     */
    message: z
      .strictObject({
        role: z.enum(['system', 'user', 'assistant', 'tool']),
        toolCallId: z.string().min(1).optional(),
        toolCalls: z
          .array(
            z.strictObject({
              id: z.string().min(1),
              name: z.string().min(1),
              version: z.string().min(1),
              args: z.record(z.string(), z.unknown()),
            }),
          )
          .optional(),
      })
      .optional(),
    /** A compact stand-in (reference and summary) for the item with this id, which was not sent. */
    summaryOf: z.string().min(1).optional(),
    /**
     * What the input guardrail found in this item's content (tool output is scanned like user input,
     * docs/context.md). Absent: nothing found, or not scanned. Never the matched text.
     */
    guardrail: z
      .strictObject({ verdict: z.enum(['flag', 'block']), reasonCodes: z.array(z.string()) })
      .optional(),
    /**
     * The access label (`context/v4`): how sensitive the content is, set by the harness, never from
     * the item's own claims: tool output and retrieved text get the input guardrail's data
     * classification of their content, everything else `internal`.
     */
    access: ContextAccessSchema.optional(),
    /** A notice and reference standing for the flagged tool output with this id, which was withheld. */
    withheldOf: z.string().min(1).optional(),
  })
  .strict();
export type ContextItem = z.infer<typeof ContextItemSchema>;

/**
 * Why a valid item was left out: `budget` (it did not fit), `superseded` (a newer fact from the same
 * source), `untrusted_instruction` (an instruction without system trust), `summarized` (sent as a
 * reference and a summary instead: the item whose `summaryOf` names it), `withheld` (flagged tool output
 * the run's policy withholds: the item whose `withheldOf` names it stands in).
 */
export const OmissionReasonSchema = z.enum([
  'budget',
  'superseded',
  'untrusted_instruction',
  'summarized',
  'withheld',
]);
export type OmissionReason = z.infer<typeof OmissionReasonSchema>;

export const ContextPackageSchema = z
  .object({
    packageId: z.string().min(1),
    policyVersion: z.string().min(1),
    /** Selected items in render order, each with its `tokenEstimate`. */
    items: z.array(ContextItemSchema),
    /** Tokens of the rendered package (items plus framing). Never above the available budget. */
    totalTokenEstimate: z.number().int().nonnegative(),
    /** Token budget left for context after the output and tool reserves. */
    availableTokens: z.number().int().nonnegative(),
    /** Item ids of valid items that were left out (see `omissions` for why). */
    omittedItemRefs: z.array(z.string()),
    omissions: z.array(z.object({ itemId: z.string(), reason: OmissionReasonSchema })),
    /**
     * Item ids dropped because they were expired or not yet effective at build time (among the
     * items the planner examined: the turns of `omittedTurns` are not).
     */
    droppedExpiredRefs: z.array(z.string()),
    /**
     * Request packages: the oldest turns, left out together for budget. A turn is the model's answer
     * to call `c` and the new messages of call `c + 1`; every item of the turns of calls
     * `firstCall..lastCall` was left out, and these are not listed in `omittedItemRefs` one by one
     * (the list would grow with the run). `items` counts them, except the expired items of the
     * newest of these turns, which the planner examined and lists in `droppedExpiredRefs`.
     * Absent: no turn was cut.
     */
    omittedTurns: z
      .strictObject({
        firstCall: z.number().int().nonnegative(),
        lastCall: z.number().int().nonnegative(),
        items: z.number().int().nonnegative(),
      })
      .optional(),
    /** Request packages of the model activity: when it was built (ISO-8601), for staleness. */
    builtAt: z.string().optional(),
    /** Request packages: the route version the request went to, and how its budget was set. */
    route: z.string().optional(),
    contextWindow: z.number().int().positive().optional(),
    /** Tokens kept free for the answer (the route's `maxOutputTokens`, or the documented default). */
    outputReserve: z.number().int().nonnegative().optional(),
    /** Tokens of the request outside the items: tool definitions and the output schema. */
    requestOverhead: z.number().int().nonnegative().optional(),
    /** How tokens were counted: a BPE encoding, or `estimate` (docs/context.md). */
    tokenizer: z.enum(['o200k_base', 'cl100k_base', 'estimate']).optional(),
  })
  .strict();
export type ContextPackage = z.infer<typeof ContextPackageSchema>;
