import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArtifactSchema } from '../../../src/contract/artifact.js';
import type { Artifact } from '../../../src/contract/artifact.js';
import { isHarnessError } from '../../../src/contract/errors.js';
import type { ToolExecution, ToolExecutor } from '../../../src/contract/tool.js';
import { ToolRegistry } from '../../../src/registry/tool-registry.js';
import type { RefundStore } from '../../../apps/refund/business/refund-store.js';
import { SEED_ORDERS } from '../../../apps/refund/business/seed-data.js';
import { createRefundTools, registerRefundTools } from '../../../apps/refund/tools/refund-tools.js';
import type { RefundTool } from '../../../apps/refund/tools/refund-tools.js';
import { makeCall, recordingContext, seededStore, tempDir } from './refund-test-support.js';

const ALLOWED_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'description',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
]);

function schemaKeywords(schema: Record<string, unknown>, out: Set<string>): Set<string> {
  for (const [key, value] of Object.entries(schema)) {
    out.add(key);
    if (key === 'properties') {
      for (const sub of Object.values(value as Record<string, Record<string, unknown>>))
        schemaKeywords(sub, out);
    }
    if (key === 'items') schemaKeywords(value as Record<string, unknown>, out);
  }
  return out;
}

/** Every artifact passes the domain schema (provenance rules, verification rules, size). */
function parsedArtifacts(execution: ToolExecution): Artifact[] {
  return (execution.artifacts ?? []).map((a) => ArtifactSchema.parse(a));
}

describe('refund tools', () => {
  let cleanup: () => void;
  let store: RefundStore;
  let tools: Map<string, RefundTool>;

  const run = (name: string, args: Record<string, unknown>, seq = 1): Promise<ToolExecution> =>
    executor(name).execute(recordingContext(), makeCall(name, args, seq));
  const executor = (name: string): ToolExecutor => {
    const tool = tools.get(name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    return tool.executor;
  };
  const errorCode = async (promise: Promise<unknown>): Promise<string | undefined> => {
    try {
      await promise;
      return undefined;
    } catch (err) {
      return isHarnessError(err) ? err.code : String(err);
    }
  };

  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    store = seededStore(dir);
    tools = new Map(createRefundTools(store).map((t) => [t.definition.name, t]));
  });
  afterEach(() => {
    store.close();
    cleanup();
  });

  it('defines the five tools with trusted effects and closed schemas in the supported subset', () => {
    const defs = [...tools.values()].map((t) => t.definition);
    expect(defs.map((d) => `${d.name}@${d.version}:${d.effect}`)).toEqual([
      'order.read@v1:read',
      'logistics.read@v1:read',
      'policy.search.refund@v1:read',
      'refund.create@v1:write',
      'refund.verify@v1:read',
    ]);
    const ajv = new Ajv({ strict: true });
    for (const def of defs) {
      expect(def.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      const unsupported = [...schemaKeywords(def.parameters, new Set())].filter(
        (k) => !ALLOWED_KEYWORDS.has(k),
      );
      expect(unsupported, def.name).toEqual([]);
      const validate = ajv.compile(def.parameters);
      expect(validate({ unexpected: 1 }), def.name).toBe(false);
    }
    expect(
      ajv.validate(tools.get('refund.create')!.definition.parameters, {
        orderId: 'ORD-1',
        amountCents: 1.5,
        reason: 'x',
      }),
    ).toBe(false);
  });

  it('registerRefundTools registers every tool with the harness tool registry, which validates arguments', () => {
    const registry = new ToolRegistry();
    const result = registerRefundTools(registry, store);
    for (const tool of result) {
      expect(registry.get(tool.definition.name, 'v1').executor).toBe(tool.executor);
    }
    const create = registry.get('refund.create', 'v1');
    expect(create.validate({ orderId: 'ORD-1001', amountCents: 100, reason: 'late' }).ok).toBe(true);
    expect(create.validate({ orderId: 'ORD-1001', amountCents: 100, reason: 'late', force: true }).ok).toBe(
      false,
    );
    expect(registry.get('policy.search.refund', 'v1').validate({}).ok).toBe(true);
  });

  it('order.read returns the order and an observed order artifact citable by version', async () => {
    const execution = await run('order.read', { orderId: SEED_ORDERS.paidUnshippedOver72h }, 3);
    expect(execution.output).toMatchObject({
      orderId: 'ORD-1001',
      customerId: 'C1001',
      status: 'paid',
      amountCents: 12_900,
      currency: 'CNY',
      phone: '13800001001',
      factRef: 'fact://order/ORD-1001@v1',
    });
    expect(execution.output.paidAt).toBeTypeOf('string');
    const [artifact] = parsedArtifacts(execution);
    expect(artifact).toMatchObject({
      id: 'run-test/3/order',
      type: 'order',
      provenance: 'observed',
      externalId: 'ORD-1001',
      data: { id: 'ORD-1001', version: 1, factRef: 'fact://order/ORD-1001@v1' },
    });
    expect((artifact?.data as { digest: string }).digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await errorCode(run('order.read', { orderId: 'ORD-404' }))).toBe('refund.order_not_found');
    expect(await errorCode(run('order.read', { orderId: 'ORD 1; DROP' }))).toBe('refund.invalid_arguments');
  });

  it('logistics.read returns the shipment state and an observed logistics artifact', async () => {
    const execution = await run('logistics.read', { orderId: SEED_ORDERS.shipped });
    expect(execution.output).toMatchObject({
      orderId: 'ORD-1003',
      status: 'in_transit',
      factRef: 'fact://logistics/ORD-1003@v1',
    });
    expect(parsedArtifacts(execution)).toEqual([
      expect.objectContaining({ type: 'logistics', provenance: 'observed', externalId: 'ORD-1003' }),
    ]);
    expect(await errorCode(run('logistics.read', { orderId: 'ORD-404' }))).toBe('refund.order_not_found');
  });

  it('policy.search.refund returns effective clauses with policy refs, one observed artifact each', async () => {
    const execution = await run(
      'policy.search.refund',
      { orderStatus: 'paid', logisticsStatus: 'not_shipped' },
      5,
    );
    expect(execution.output.count).toBe(2);
    expect((execution.output.policies as { ref: string }[]).map((p) => p.ref)).toEqual([
      'policy://refund/v18#R001',
      'policy://refund/v18#R004',
    ]);
    const artifacts = parsedArtifacts(execution);
    expect(artifacts.map((a) => [a.id, a.type, a.provenance, a.externalId])).toEqual([
      ['run-test/5/policy/R001', 'policy', 'observed', 'policy://refund/v18#R001'],
      ['run-test/5/policy/R004', 'policy', 'observed', 'policy://refund/v18#R004'],
    ]);
    const empty = await run('policy.search.refund', { query: 'no-such-words' });
    expect(empty.output).toEqual({ count: 0, policies: [] });
    expect(empty.artifacts).toEqual([]);
    expect(await errorCode(run('policy.search.refund', { orderStatus: 'lost' }))).toBe(
      'refund.invalid_arguments',
    );
  });

  it('refund.create creates one refund per idempotency key and reports an observed refund artifact', async () => {
    const args = {
      orderId: SEED_ORDERS.paidUnshippedOver72h,
      amountCents: 12_900,
      reason: 'not shipped after 72h',
    };
    const first = await run('refund.create', args, 9);
    const again = await run('refund.create', args, 9);
    expect(again).toEqual(first);
    expect(first.externalId).toMatch(/^RF-[A-HJ-NP-R]{20}$/);
    expect(first.output).toMatchObject({
      refundId: first.externalId,
      orderId: 'ORD-1001',
      amountCents: 12_900,
      status: 'succeeded',
    });
    const [artifact] = parsedArtifacts(first);
    expect(artifact).toMatchObject({ type: 'refund', provenance: 'observed', externalId: first.externalId });
    // A different call (another seq, so another key) is a second refund and the order is now exhausted.
    expect(await errorCode(run('refund.create', { ...args, amountCents: 1 }, 10))).toBe(
      'refund.amount_exceeds_order',
    );
    expect(await errorCode(run('refund.create', { ...args, orderId: 'ORD-404' }, 11))).toBe(
      'refund.order_not_found',
    );
    expect(await errorCode(run('refund.create', { ...args, amountCents: 0 }, 12))).toBe(
      'refund.invalid_arguments',
    );
  });

  it('refund.create reconcile finds the refund by idempotency key, or reports not applied', async () => {
    const create = executor('refund.create');
    const args = { orderId: SEED_ORDERS.delivered, amountCents: 800, reason: 'damaged' };
    const call = makeCall('refund.create', args, 4);
    expect(await create.reconcile!(recordingContext(), call)).toEqual({ outcome: 'not_applied' });
    const execution = await create.execute(recordingContext(), call);
    expect(await create.reconcile!(recordingContext(), call)).toEqual({ outcome: 'succeeded', execution });
    expect(
      await create.reconcile!(recordingContext(), { ...call, args: { ...args, amountCents: 700 } }),
    ).toEqual({
      outcome: 'unknown',
    });
  });

  it('refund.verify passes for a matching refund and fails otherwise, as a verified artifact', async () => {
    const created = await run(
      'refund.create',
      { orderId: SEED_ORDERS.delivered, amountCents: 800, reason: 'damaged' },
      2,
    );
    const refundId = created.externalId!;

    const pass = await run(
      'refund.verify',
      { refundId, expectedOrderId: 'ORD-1004', expectedAmountCents: 800 },
      3,
    );
    expect(pass.output.status).toBe('passed');
    const [passArtifact] = parsedArtifacts(pass);
    expect(passArtifact).toMatchObject({
      id: 'run-test/3/refund.verification',
      type: 'refund.verification',
      provenance: 'verified',
      verification: { subject: { externalId: refundId }, status: 'passed' },
    });

    const wrongAmount = await run('refund.verify', { refundId, expectedAmountCents: 801 });
    expect(wrongAmount.output.status).toBe('failed');
    expect(wrongAmount.output.checks).toContainEqual({
      name: 'amount_matches',
      passed: false,
      expected: 801,
      actual: 800,
    });
    expect(parsedArtifacts(wrongAmount)[0]?.verification?.status).toBe('failed');

    const wrongOrder = await run('refund.verify', { refundId, expectedOrderId: 'ORD-1001' });
    expect(wrongOrder.output.status).toBe('failed');

    const missing = await run('refund.verify', { refundId: 'RF-DOESNOTEXIST' });
    expect(missing.output).toEqual({
      refundId: 'RF-DOESNOTEXIST',
      status: 'failed',
      checks: [{ name: 'exists', passed: false }],
    });
    expect(parsedArtifacts(missing)[0]).toMatchObject({
      provenance: 'verified',
      verification: { subject: { externalId: 'RF-DOESNOTEXIST' }, status: 'failed' },
    });
  });
});
