import { z } from 'zod';
import type { ToolExecution } from '../../../src/index.js';
import { contentDigest, policyRef } from '../business/fact-refs.js';
import type { RefundStore } from '../business/refund-store.js';
import { LogisticsStatusSchema, OrderStatusSchema } from '../business/refund-types.js';
import { REFUND_ARTIFACT_SCHEMA_VERSION, artifactIdFor, parseArgs } from './tool-support.js';
import type { RefundTool } from './tool-support.js';

const ArgsSchema = z
  .object({
    query: z.string().max(200).optional(),
    orderStatus: OrderStatusSchema.optional(),
    logisticsStatus: LogisticsStatusSchema.optional(),
  })
  .strict();

/** Artifact type of an observed policy clause. */
export const POLICY_ARTIFACT_TYPE = 'policy';

/**
 * `policy.search.refund` v1 (read): the refund policy clauses in force that apply to the given
 * order and logistics status and match the query.
 *
 * Output `{ count, policies: [{ ref, id, version, title, text, rule }] }` with refs like
 * `policy://refund/v18#R001`, plus one observed `policy` artifact per clause (externalId = ref).
 * An empty result is a success with `count: 0`. Fails only with `refund.invalid_arguments`.
 */
export function createPolicySearchRefundTool(store: RefundStore): RefundTool {
  return {
    definition: {
      name: 'policy.search.refund',
      version: 'v1',
      description:
        'Find the refund policy clauses in force for an order and shipment status. Cite a clause by its ref (policy://refund/vN#RNNN).',
      effect: 'read',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to look for in the clauses.', maxLength: 200 },
          orderStatus: { type: 'string', enum: [...OrderStatusSchema.options] },
          logisticsStatus: { type: 'string', enum: [...LogisticsStatusSchema.options] },
        },
        required: [],
        additionalProperties: false,
      },
    },
    executor: {
      async execute(ctx, call): Promise<ToolExecution> {
        const search = parseArgs(ArgsSchema, call);
        const policies = await store.searchPolicies(search, ctx);
        return {
          output: {
            count: policies.length,
            policies: policies.map((p) => ({
              ref: policyRef(p),
              id: p.id,
              version: p.version,
              title: p.title,
              text: p.text,
              rule: p.rule,
            })),
          },
          artifacts: policies.map((p) => ({
            id: artifactIdFor(call, POLICY_ARTIFACT_TYPE, p.id),
            type: POLICY_ARTIFACT_TYPE,
            schemaVersion: REFUND_ARTIFACT_SCHEMA_VERSION,
            provenance: 'observed' as const,
            externalId: policyRef(p),
            data: { ...p, ref: policyRef(p), digest: contentDigest(p) },
          })),
        };
      },
    },
  };
}
