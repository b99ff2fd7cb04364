import { z } from 'zod';

/**
 * One erasure of a run's erasable values (docs/evidence-chain.md, "Erasure"), as the store's
 * append-only `erasures` table keeps it and a proof bundle carries it: who asked, when, why, which
 * paths (inside the events' data, e.g. `/userId`) and how many values of how many events. Never a value.
 */
export const ErasureRecordSchema = z.strictObject({
  runId: z.string().min(1).max(300),
  /** The erasure's number in its run, from 1. */
  seq: z.number().int().positive(),
  erasedAt: z.string().min(1).max(64),
  actor: z.string().min(1).max(200),
  reason: z.string().max(1000).nullable(),
  paths: z.array(z.string().max(1000)).max(100_000),
  values: z.number().int().nonnegative(),
  events: z.number().int().nonnegative(),
});
export type ErasureRecord = z.infer<typeof ErasureRecordSchema>;

/**
 * What to erase: the erasable values of one run (`runId`), or of every run that stored `subject`
 * (a value, e.g. a customer id), narrowed to one `path` inside the events' data when given. `actor`
 * and `reason` are recorded with the erasure.
 */
export const ErasureRequestSchema = z
  .strictObject({
    runId: z.string().min(1).max(300).optional(),
    subject: z.union([z.string().min(1).max(1000), z.number()]).optional(),
    path: z
      .string()
      .regex(/^(\/[^/]{1,100}){1,10}$/, 'a JSON pointer inside the event data, e.g. /userId')
      .optional(),
    actor: z.string().trim().min(1).max(200),
    reason: z.string().max(1000).optional(),
    at: z.iso.datetime(),
  })
  .refine((r) => r.runId !== undefined || r.subject !== undefined, {
    message: 'name a run id or a subject value',
  });
export type ErasureRequest = z.infer<typeof ErasureRequestSchema>;
