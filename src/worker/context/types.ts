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
  })
  .strict();
export type ContextItem = z.infer<typeof ContextItemSchema>;

export const OmissionReasonSchema = z.enum(['budget', 'superseded', 'untrusted_instruction']);
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
    /** Item ids dropped because they were expired or not yet effective at build time. */
    droppedExpiredRefs: z.array(z.string()),
  })
  .strict();
export type ContextPackage = z.infer<typeof ContextPackageSchema>;
