import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/**
 * A payload in proto3 JSON, as the Temporal Web UI and CLI send it to a codec server: metadata values
 * and data in base64.
 */
export const PayloadJsonSchema = z
  .object({
    metadata: z.record(z.string(), z.string()).nullish(),
    data: z.string().nullish(),
  })
  .loose();

export type PayloadJson = z.infer<typeof PayloadJsonSchema>;

/** The body of `POST /encode` and `POST /decode`, and of their answers. */
export const PayloadsBodySchema = z.object({ payloads: z.array(PayloadJsonSchema).max(10_000) }).loose();

const b64 = (s: string): Buffer => Buffer.from(s, 'base64');

export function payloadFromJson(p: PayloadJson): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
    data: p.data ? b64(p.data) : new Uint8Array(0),
  };
}

export function payloadToJson(p: Payload): { metadata: Record<string, string>; data: string } {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [
        k,
        Buffer.from(v ?? new Uint8Array(0)).toString('base64'),
      ]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array(0)).toString('base64'),
  };
}
