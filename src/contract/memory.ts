import { z } from 'zod';

/**
 * Thread memory (docs/context.md, "Memory"): what one run of a thread leaves for the next ones. An
 * entry is a verified fact the run recorded from observed evidence, never model text or free text
 * from a tool: its value is a boolean, a number or a short identifier-like string (no spaces, so no
 * sentence, and no instruction, fits in it).
 */

/**
 * A fact name, as the runner's verified facts use them (`order.owner_verified`). Built on first use (see
 * builtOnFirstUse).
 */
export const MemoryNameSchema = z.lazy(() =>
  z.string().regex(/^[a-z][a-z0-9_.:-]{0,127}$/, 'a lowercase fact name'),
);

/**
 * Identifier-like text: letters, digits and `_ . : @ / # + -`, 1-128 characters, no spaces. Built on
 * first use (see builtOnFirstUse).
 */
export const MemoryTextSchema = z.lazy(() =>
  z
    .string()
    .regex(/^[A-Za-z0-9_.:@/#+-]{1,128}$/, 'identifier-like text (no spaces, at most 128 characters)'),
);

/** Built on first use (see builtOnFirstUse). */
export const MemoryValueSchema = z.lazy(() => z.union([z.boolean(), z.number().finite(), MemoryTextSchema]));
export type MemoryValue = z.infer<typeof MemoryValueSchema>;

/**
 * Whose memory: a thread, within the tenant and user the run was started for (absent: none). Built on
 * first use (see builtOnFirstUse).
 */
export const MemoryScopeSchema = z.lazy(() =>
  z
    .object({
      threadId: z.string().min(1).max(200),
      tenantId: z.string().min(1).max(128).optional(),
      userId: z.string().min(1).max(200).optional(),
    })
    .strict(),
);
export type MemoryScope = z.infer<typeof MemoryScopeSchema>;

/** Built on first use (see builtOnFirstUse). */
export const MemoryEntrySchema = z.lazy(() =>
  z
    .object({
      /** `<runId>:memory:<name>`: one entry per fact and run, so a retried write is idempotent. */
      entryId: z.string().min(1).max(600),
      scope: MemoryScopeSchema,
      name: MemoryNameSchema,
      value: MemoryValueSchema,
      /** Always `verified`: the fact was recorded from observed evidence by the run that wrote it. */
      trust: z.literal('verified'),
      provenance: z
        .object({
          runId: z.string().min(1).max(200),
          /** The artifact the fact was recorded from (never a model artifact). */
          evidenceArtifactId: z.string().min(1).max(300),
          /** That artifact's provenance (`tool`, `human`...). */
          evidenceProvenance: z.string().min(1).max(40),
          /** The policy version that allowed the write. */
          policyVersion: z.string().min(1).max(200),
        })
        .strict(),
      /** ISO-8601 (UTC, `Z`) instants from the writing run's workflow clock. */
      createdAt: z.iso.datetime(),
      expiresAt: z.iso.datetime().nullable(),
    })
    .strict(),
);
export type MemoryEntry = z.infer<typeof MemoryEntrySchema>;

/** Longest a memory entry may live (a year); a write asks for less or gets this. */
export const MAX_MEMORY_TTL_SECONDS = 365 * 24 * 3600;

/** Entries a run reads from its thread at most (the newest per name). */
export const MAX_RECALLED_ENTRIES = 50;
