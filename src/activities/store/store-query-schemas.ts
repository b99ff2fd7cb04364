import { z } from 'zod';
import { FailureReasonSchema } from '../../contract/failure-sample-record.js';
import { MemoryNameSchema } from '../../contract/memory.js';
import { SeqSchema } from '../../contract/store-records.js';

/** The query and paging inputs of the SQL evidence store, checked before any I/O (sql-evidence-store.ts). */

export const MemoryListSchema = z.strictObject({
  now: z.iso.datetime(),
  limit: z.number().int().positive().optional(),
  all: z.boolean().optional(),
});
export const MemoryForgetSchema = z
  .object({ name: MemoryNameSchema.optional(), at: z.iso.datetime() })
  .strict();

export const EventPageSchema = z.strictObject({
  afterSeq: SeqSchema.optional(),
  limit: z.number().int().min(1).optional(),
});
export const FailureListSchema = z.strictObject({
  since: z.iso.datetime({ offset: true }).optional(),
  reason: FailureReasonSchema.optional(),
  tenantId: z.string().min(1).max(200).optional(),
  limit: z.number().int().min(1).optional(),
});
const IsoInstant = z.iso.datetime({ offset: true });
export const RunListSchema = z.strictObject({
  status: z.string().min(1).max(64).optional(),
  tenantId: z.string().min(1).max(200).optional(),
  createdFrom: IsoInstant.optional(),
  createdBefore: IsoInstant.optional(),
  limit: z.number().int().min(1).optional(),
});
export const SeqRangeSchema = z.strictObject({ fromSeq: SeqSchema.optional(), toSeq: SeqSchema.optional() });
