import type { GraphNode, NodeResult, Observation, RunContext } from '../../../src/workflows/index.js';
import type { RefundGraphState as S } from './refund-state.js';

const ORDER_ID = /\bORD-[A-Z0-9-]{1,40}\b/;

function refuse(reason: string): NodeResult<S> {
  return {
    outcome: 'completed',
    statePatch: { outcome: 'refused', refusalReason: reason },
    nextNode: 'compose_response',
  };
}

/** A stable reason code: lower-case words joined by dots or underscores, at most 64 characters. */
const REASON_CODE = /^[a-z][a-z0-9_]{0,30}(?:\.[a-z0-9_]{1,30}){0,3}$/;

/**
 * A failed tool call as the customer may read it: the tool, its status and its error code when that
 * is a stable reason code. The error message (internal text: store errors, addresses, stack lines)
 * stays in the events and the evidence store, never in the reply.
 */
function failedTool(o: Observation): NodeResult<S> {
  const code = typeof o.errorCode === 'string' && REASON_CODE.test(o.errorCode) ? o.errorCode : 'tool.failed';
  return refuse(`${o.toolName} ${o.status}: ${code}`);
}

const out = (o: Observation): Record<string, unknown> => o.output ?? {};

/**
 * The refund a succeeded refund.create names: its output, its external id, or, when an operator
 * reconciled a lost write, the `refundId` of the operator's evidence (refund.verify then checks it).
 */
function refundIdOf(o: Observation): string | null {
  const output = out(o);
  if (typeof output.refundId === 'string') return output.refundId;
  if (o.externalId) return o.externalId;
  const evidence = output.evidence as Record<string, unknown> | null | undefined;
  return typeof evidence?.refundId === 'string' ? evidence.refundId : null;
}

/** The arguments of the refund the graph proposes (confirmed, then created with exactly these). */
function refundArgs(s: S): Record<string, unknown> {
  return { orderId: s.orderId, amountCents: s.decision!.amountCents, reason: s.decision!.reasonCode };
}

export const refundNodes: GraphNode<S>[] = [
  {
    id: 'normalize_input',
    run: (s) => {
      const message = s.message.normalize('NFC').replace(/\s+/g, ' ').trim().slice(0, 2000);
      const orderId = s.orderId ?? ORDER_ID.exec(message)?.[0] ?? null;
      return Promise.resolve({ outcome: 'completed', statePatch: { message, orderId } });
    },
  },
  {
    id: 'identify_intent',
    async run(s, ctx) {
      const d = await ctx.model('route', {
        messages: [
          {
            role: 'system',
            content: 'Classify the customer message. Answer with one word: refund or other.',
            trust: 'system',
          },
          { role: 'user', content: s.message, trust: 'untrusted' },
        ],
      });
      const intent = /\brefund\b/i.test(d.text) ? 'refund' : 'other';
      if (intent === 'other')
        return {
          ...refuse('not a refund request'),
          statePatch: { intent, outcome: 'refused', refusalReason: 'not a refund request' },
        };
      return { outcome: 'completed', statePatch: { intent } };
    },
  },
  {
    id: 'collect_required_slots',
    run: (s, ctx) => {
      // Who asks is the run's verified requester (a signed start), never a field of the task. Runs
      // from before identities (`verified` absent) keep the task's customer.
      const who = ctx.requester;
      if (who.verified === false)
        return Promise.resolve(refuse('identity_unverified: a refund is asked by a signed-in customer'));
      if (who.verified === true && s.customerId !== null && s.customerId !== who.userId)
        return Promise.resolve(
          refuse('identity_mismatch: the request names another customer than the requester'),
        );
      if (!s.orderId)
        return Promise.resolve({
          outcome: 'pause_for_input',
          input: { slot: 'orderId', prompt: 'Which order should be refunded? (order id, e.g. ORD-1001)' },
        });
      if (who.verified === true)
        return Promise.resolve({ outcome: 'completed', statePatch: { customerId: who.userId } });
      if (!s.customerId)
        return Promise.resolve({
          outcome: 'pause_for_input',
          input: { slot: 'customerId', prompt: 'Who is asking? (customer id)' },
        });
      return Promise.resolve({ outcome: 'completed' });
    },
  },
  {
    id: 'query_order',
    capabilities: ['order.read'],
    async run(s, ctx) {
      const o = await ctx.tool('order.read', { orderId: s.orderId });
      if (o.status !== 'succeeded') return failedTool(o);
      const d = out(o);
      return {
        outcome: 'completed',
        statePatch: {
          order: {
            orderId: String(d.orderId),
            customerId: String(d.customerId),
            status: String(d.status),
            amountCents: Number(d.amountCents),
            currency: String(d.currency),
            paidAt: String(d.paidAt),
            factRef: String(d.factRef),
          },
          orderArtifactId: o.artifactIds[0] ?? null,
        },
      };
    },
  },
  {
    id: 'verify_order_ownership',
    run: (s, ctx) => {
      const owner = ctx.requester.verified === true ? ctx.requester.userId : s.customerId;
      if (!s.order || !s.orderArtifactId || s.order.customerId !== owner) {
        return Promise.resolve(refuse('ownership_mismatch: the order does not belong to this customer'));
      }
      ctx.recordFact('order.owner_verified', true, s.orderArtifactId);
      return Promise.resolve({ outcome: 'completed' });
    },
  },
  {
    id: 'query_logistics',
    capabilities: ['logistics.read'],
    async run(s, ctx) {
      const o = await ctx.tool('logistics.read', { orderId: s.orderId });
      if (o.status !== 'succeeded') return failedTool(o);
      return {
        outcome: 'completed',
        statePatch: { logistics: { status: String(out(o).status), factRef: String(out(o).factRef) } },
      };
    },
  },
  {
    id: 'retrieve_effective_policy',
    capabilities: ['policy.search.refund'],
    async run(s, ctx) {
      const o = await ctx.tool('policy.search.refund', {
        orderStatus: s.order?.status,
        logisticsStatus: s.logistics?.status,
      });
      if (o.status !== 'succeeded') return failedTool(o);
      const policies =
        (out(o).policies as { ref: string; id: string; rule: Record<string, unknown> }[] | undefined) ?? [];
      return {
        outcome: 'completed',
        statePatch: { policies: policies.map((p) => ({ ref: p.ref, id: p.id, rule: p.rule })) },
      };
    },
  },
  {
    id: 'decide_eligibility',
    run: (s) => {
      const order = s.order!;
      const hours = (Date.now() - Date.parse(order.paidAt)) / 3_600_000;
      const r001 = s.policies.find((p) => typeof p.rule.maxHoursUnshippedForFullRefund === 'number');
      const limit = r001 ? Number(r001.rule.maxHoursUnshippedForFullRefund) : Infinity;
      if (order.status === 'paid' && s.logistics?.status === 'not_shipped' && hours >= limit) {
        return Promise.resolve({
          outcome: 'completed',
          statePatch: {
            decision: {
              eligible: true,
              amountCents: order.amountCents,
              reasonCode: 'eligible.unshipped_over_limit',
              policyRef: r001?.ref ?? null,
            },
          },
        });
      }
      const reasonCode =
        order.status !== 'paid'
          ? `ineligible.order_${order.status}`
          : s.logistics?.status !== 'not_shipped'
            ? `ineligible.logistics_${s.logistics?.status}`
            : 'ineligible.too_early';
      return Promise.resolve({
        outcome: 'completed',
        statePatch: {
          decision: { eligible: false, amountCents: 0, reasonCode, policyRef: r001?.ref ?? null },
          outcome: 'refused',
          refusalReason: reasonCode,
        },
        nextNode: 'compose_response',
      });
    },
  },
  {
    id: 'verify_decision',
    run: (s) => {
      const d = s.decision;
      if (!d?.eligible || !s.order || d.amountCents <= 0 || d.amountCents > s.order.amountCents) {
        return Promise.resolve(refuse('decision_not_verified'));
      }
      return Promise.resolve({ outcome: 'completed' });
    },
  },
  {
    id: 'request_confirmation',
    run: (s) =>
      Promise.resolve({
        outcome: 'pause_for_confirmation',
        confirmation: {
          decisionType: 'refund_confirmation',
          summary: `Refund ${(s.decision!.amountCents / 100).toFixed(2)} ${s.order!.currency} for order ${s.order!.orderId} (${s.decision!.reasonCode})`,
          verifiedFacts: [s.order!.factRef, s.logistics?.factRef ?? ''].filter(Boolean),
          policyEvidence: s.decision!.policyRef ? [s.decision!.policyRef] : [],
          riskReasons: s.decision!.amountCents > 500_000 ? ['amount_over_auto_limit'] : [],
          // Bound to the refund create_refund will ask for: its approval counts for that call.
          action: { tool: 'refund.create', version: 'v1', args: refundArgs(s) },
        },
      }),
  },
  {
    id: 'create_refund',
    capabilities: ['refund.create'],
    async run(s, ctx) {
      const o = await ctx.tool('refund.create', refundArgs(s));
      if (o.status !== 'succeeded') return failedTool(o);
      return {
        outcome: 'completed',
        statePatch: {
          refundId: refundIdOf(o),
          refundArtifactId: o.artifactIds[0] ?? null,
        },
      };
    },
  },
  {
    id: 'reconcile_refund_state',
    capabilities: ['refund.verify'],
    async run(s, ctx) {
      const o = await ctx.tool('refund.verify', {
        refundId: s.refundId,
        expectedOrderId: s.orderId,
        expectedAmountCents: s.decision!.amountCents,
      });
      const verified = o.status === 'succeeded' && out(o).status === 'passed';
      return {
        outcome: 'completed',
        statePatch: {
          verified,
          outcome: verified ? 'refunded' : 'refused',
          refusalReason: verified ? null : 'refund_not_verified',
        },
      };
    },
  },
  {
    id: 'compose_response',
    run: (s) => {
      const message =
        s.outcome === 'refunded'
          ? `Your refund ${s.refundId} of ${(s.decision!.amountCents / 100).toFixed(2)} ${s.order!.currency} for order ${s.orderId} has been created and verified.`
          : s.outcome === 'declined_by_user' || s.confirmation_granted === false
            ? `The refund for order ${s.orderId} was not confirmed, so nothing was refunded.`
            : `We cannot refund order ${s.orderId ?? '(unknown)'}: ${s.refusalReason ?? 'not eligible'}.`;
      const outcome =
        s.outcome === 'refunded'
          ? 'refunded'
          : s.confirmation_granted === false
            ? 'declined_by_user'
            : 'refused';
      return Promise.resolve({
        outcome: 'completed',
        statePatch: { outcome },
        output: { outcome, message, refundId: s.refundId, orderId: s.orderId },
      });
    },
  },
];

export type { RunContext };
