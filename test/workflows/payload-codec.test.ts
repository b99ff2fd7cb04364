import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import {
  CodecKeyRing,
  decodeHistoryPayloads,
  EncryptionCodec,
  harnessDataConverter,
  isEncryptedPayload,
  payloadsOf,
} from '../../src/codec/index.js';
import { createHarnessClient } from '../../src/client/harness-client.js';
import { startAgentRun } from '../../src/client/start-run.js';
import type { RunView } from '../../src/workflows/temporal/run-view.js';
import { seedDemoOrder } from '../../apps/refund/demo-order.js';
import { decide } from '../support/decisions.js';
import { TEST_KEYS } from '../support/principals.js';
import {
  createHarnessFixture,
  refundRunInput,
  waitForState,
  type HarnessFixture,
} from '../support/harness.js';
import { testRunId } from '../support/run-id.js';
import { collectProofBundle } from '../../src/activities/proof/collect-proof-bundle.js';
import { decodeBundleHistories } from '../../src/client/proof/decode-bundle.js';
import { verifyProofBundle } from '../../src/client/proof/verify-bundle.js';

const History = proto.temporal.api.history.v1.History;
const key = (): string => randomBytes(32).toString('base64');

/** Model text no other part of the run says: the route answer of a scripted model. */
const MODEL_TEXT = 'Customer asks for a refund of an unshipped parcel';
const CODEC_ROUTE = 'scripted/codec';
const SCRIPT = {
  entries: [
    {
      match: { purpose: 'route' },
      response: { text: MODEL_TEXT, toolCalls: [], usage: { inputTokens: 40, outputTokens: 9 } },
    },
  ],
};
const message = (orderId: string): string => `My order ${orderId} has not shipped for days, please refund`;

/** What must never be readable in the stored history: customer data, tool results, model text. */
function secrets(orderId: string, refundId: string): string[] {
  return [
    orderId, // order id (input, tool arguments and results)
    'C1001', // customer id
    '13800001001', // the customer's phone (order.read result)
    '12900', // the amount in cents (order.read result, refund arguments)
    'has not shipped for days', // the customer's message
    'not_shipped', // logistics.read result
    'within 72 hours of payment', // policy.search.refund result (policy text)
    MODEL_TEXT,
    refundId, // refund.create result
  ];
}

/** Where the unencrypted payloads of a proto tree are (dotted paths). */
function plainPayloadPaths(root: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (typeof v !== 'object' || v === null || v instanceof Uint8Array) return;
    const [p] = payloadsOf([v]);
    if (p === v) {
      if (!isEncryptedPayload(p)) out.push(path);
      return;
    }
    for (const [k, child] of Object.entries(v)) walk(child, `${path}.${k}`);
  };
  walk(root, 'events');
  return out;
}

/** The history as the server stores it, fetched by a client without the codec. */
async function rawHistory(client: Client, workflowId: string) {
  return client.workflow.getHandle(workflowId).fetchHistory();
}

/** The stored bytes of the whole history (every event, every attribute), as text. */
const historyText = (h: Awaited<ReturnType<typeof rawHistory>>): string =>
  Buffer.from(History.encode(h).finish()).toString('latin1');

describe('payload codec on a real server: a refund run leaves no plain data in history', () => {
  const oldKey = { id: 'k-2025', key: key() };
  const newKey = { id: 'k-2026', key: key() };
  const codec = new EncryptionCodec(CodecKeyRing.from({ primary: newKey.id, keys: [newKey, oldKey] }));
  let h: HarnessFixture;
  let client: Client;
  beforeAll(async () => {
    h = await createHarnessFixture('codec', { scripts: { [CODEC_ROUTE]: SCRIPT } }, { payloadCodec: codec });
    client = createHarnessClient({
      connection: h.t.connection,
      namespace: h.t.namespace,
      payloadCodec: codec,
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A refund run for a fresh order of customer C1001, started by `by`, approved and finished. */
  async function refund(
    by: Client,
    workflowId: string,
  ): Promise<{ handle: WorkflowHandle; orderId: string; refundId: string }> {
    const { orderId, customerId } = seedDemoOrder(h.composition.refundStore);
    const input = refundRunInput({
      task: { message: message(orderId), customerId },
      modelRoute: CODEC_ROUTE,
    });
    // Signed by the customer (C1001): an anonymous refund run is refused.
    await startAgentRun(by, {
      taskQueue: h.taskQueue,
      workflowId,
      input,
      signer: { key: TEST_KEYS.customer },
    });
    // Reads and decisions go through the client with the codec (the run's payloads are encrypted).
    const handle = client.workflow.getHandle(workflowId);
    const waiting = await waitForState(handle, (v) => v.status === 'awaiting_confirmation');
    await decide(handle, 'approve', { reason: 'policy R001' }, waiting);
    const result = (await handle.result()) as {
      status: string;
      output: { outcome: string; refundId: string };
    };
    expect(result, JSON.stringify(result)).toMatchObject({
      status: 'succeeded',
      output: { outcome: 'refunded' },
    });
    return { handle, orderId, refundId: result.output.refundId };
  }

  it('with the codec on, the raw history holds none of the tool results, customer data or model text', async () => {
    const workflowId = testRunId('codec-run');
    const { handle, orderId, refundId } = await refund(client, workflowId);
    expect(refundId).toBeTruthy();
    const view = await handle.query<RunView>('state');
    // tool results of reads and of the write were recorded in this history
    expect(view.invocations.map((i) => i.tool)).toEqual(
      expect.arrayContaining(['order.read', 'logistics.read', 'policy.search.refund', 'refund.create']),
    );

    const raw = await rawHistory(h.t.client, workflowId);
    const text = historyText(raw);
    for (const s of secrets(orderId, refundId)) expect(text, `"${s}" in the stored history`).not.toContain(s);

    // Every payload the workers and the client wrote is encrypted. Plain stay only what codecs never
    // see: search attributes (status, waiting reason, profile), headers, and the SDK core's own marker
    // metadata (patch ids; a local activity's type, attempt and times; its result is encrypted).
    const encrypted = payloadsOf(raw.events).filter(isEncryptedPayload);
    expect(encrypted.length).toBeGreaterThan(20);
    const plain = plainPayloadPaths(raw.events);
    expect(plain.length).toBeGreaterThan(0);
    expect(
      plain.filter(
        (p) =>
          !/searchAttributes|header/i.test(p) &&
          !/markerRecordedEventAttributes\.details\.(patch-data|data)\./.test(p),
      ),
    ).toEqual([]);
    const keyIds = new Set(encrypted.map((p) => Buffer.from(p.metadata!['encryption-key-id']!).toString()));
    expect([...keyIds]).toEqual(['k-2026']);

    // With the keys the same history decodes: the input, the model text and the tool results are there.
    const decoded = await decodeHistoryPayloads(raw, codec);
    const decodedText = payloadsOf(decoded.events)
      .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
      .join('\n');
    for (const s of secrets(orderId, refundId)) expect(decodedText, `"${s}" after decoding`).toContain(s);

    // And it replays against the workflow code with the codec's data converter.
    await Worker.runReplayHistory(
      {
        workflowBundle: { codePath: inject('workflowBundlePath') },
        dataConverter: harnessDataConverter(codec),
        replayName: workflowId,
      },
      raw,
      workflowId,
    );
  });

  it('a run started without the codec still reads on encrypting workers (unencrypted payloads pass through)', async () => {
    const workflowId = testRunId('codec-legacy');
    const { orderId, refundId } = await refund(h.t.client, workflowId);
    const raw = await rawHistory(h.t.client, workflowId);
    const started = raw.events?.[0]?.workflowExecutionStartedEventAttributes;
    // The start input went in plain (written by a client without the codec) ...
    expect(payloadsOf(started?.input).some(isEncryptedPayload)).toBe(false);
    expect(historyText(raw)).toContain(orderId);
    // ... everything the workers wrote after it is encrypted.
    const completed = raw.events?.at(-1)?.workflowExecutionCompletedEventAttributes;
    const result = payloadsOf(completed?.result);
    expect(result.length).toBe(1);
    expect(result.every(isEncryptedPayload)).toBe(true);
    expect(historyText(raw)).not.toContain(refundId);
  });

  it('a proof bundle of the encrypted run is unreadable without the codec keys and verifies with them', async () => {
    const workflowId = testRunId('codec-proof');
    await refund(client, workflowId);
    // Exported by a client without the codec: the history keeps its payloads as the server holds them.
    const bundle = await collectProofBundle(h.composition.store, h.t.client, workflowId);
    const sealed = verifyProofBundle(bundle);
    expect(sealed.checks.find((c) => c.check === 'history')?.code).toBe('history.unreadable');
    expect(sealed.ok).toBe(false);
    const decoded = await decodeBundleHistories(bundle, codec);
    const report = verifyProofBundle(decoded);
    expect(report.checks.find((c) => c.check === 'history')?.code).toBe('history.ok');
    // Exported without values: the store's copies were withheld, the history's (opaque then) were not,
    // so those positions are compared by position only, and the line says so (docs/evidence-chain.md).
    expect(report.checks.find((c) => c.check === 'history')?.detail).toMatch(
      /\d+ value\(s\) withheld in one record only, compared by position/,
    );
    expect(report.checks.find((c) => c.check === 'decisions')?.ok).toBe(true);
    // This worker has no attestation key: only the signed-head checks fail.
    expect(report.checks.filter((c) => !c.ok).map((c) => c.code)).toEqual([
      'heads.unsigned',
      'seal.unsigned',
    ]);
    // A codec without the run's key cannot read it: the codec's own error, nothing verified.
    const stranger = new EncryptionCodec(
      CodecKeyRing.from({ primary: 'k-other', keys: [{ id: 'k-other', key: key() }] }),
    );
    await expect(decodeBundleHistories(bundle, stranger)).rejects.toThrow(/codec|key/i);
  });
});
