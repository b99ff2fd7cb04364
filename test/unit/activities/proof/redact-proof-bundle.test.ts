import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redactProofBundle } from '../../../../src/activities/proof/redact-proof-bundle.js';
import { checkArtifacts, jsonSha256 } from '../../../../src/client/proof/check-artifacts.js';
import { checkHistory } from '../../../../src/client/proof/check-history.js';
import { countWithheld } from '../../../../src/client/proof/count-withheld.js';
import { generationsFacts } from '../../../../src/client/proof/history-facts.js';
import type { ProofInput } from '../../../../src/client/proof/proof-check.js';
import { PROOF_BUNDLE_FORMAT, type ProofBundle } from '../../../../src/contract/proof-bundle.js';
import type { InvocationRecord, StoredArtifact } from '../../../../src/contract/store-records.js';

const EMAIL = 'jane.doe@example.com';
const PHONE = '13800001001';
const NAME = 'Jane Doe';
const CUSTOMER = 'C1001';
/** The data-taint digest of the phone as the guardrails keep it: unsalted, a dictionary could find it. */
const TAINT = createHash('sha256').update(PHONE).digest('hex').slice(0, 16);

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const payload = (value: unknown, meta: Record<string, string> = {}) => ({
  metadata: { encoding: b64('json/plain'), ...meta },
  data: b64(JSON.stringify(value)),
});
const encrypted = { metadata: { encoding: b64('binary/encrypted') }, data: b64('opaque bytes') };

const output = { orderId: 'ORD-1001', customerId: CUSTOMER, phone: PHONE, amountCents: 12_900 };
const artifactData = { id: 'ORD-1001', customerId: CUSTOMER, phone: PHONE, note: `call ${PHONE}` };
const registry = { digest: 'sha256:reg', registry: { version: 1, principals: [{ id: CUSTOMER }] } };

/** A small bundle in the exporter's shapes: one order read, recorded in the store and the history. */
function bundle(): ProofBundle {
  const history = {
    events: [
      {
        eventId: '1',
        workflowExecutionStartedEventAttributes: {
          input: {
            payloads: [
              payload({
                userId: CUSTOMER,
                startToken: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJDMTAwMSJ9.sig',
                task: {
                  message: `I am ${NAME}, mail me at ${EMAIL}`,
                  customerId: CUSTOMER,
                  email: EMAIL,
                  fullName: NAME,
                },
              }),
            ],
          },
          searchAttributes: { indexedFields: { AgentUser: payload(CUSTOMER, { type: b64('Keyword') }) } },
          memo: { fields: { harnessFeatures: payload(['agent-run-seal-v1']) } },
        },
      },
      {
        eventId: '5',
        activityTaskScheduledEventAttributes: {
          activityType: { name: 'runTool' },
          input: { payloads: [payload({ seq: 3, tool: 'order.read', args: { orderId: 'ORD-1001' } })] },
        },
      },
      {
        eventId: '7',
        activityTaskCompletedEventAttributes: {
          scheduledEventId: '5',
          result: {
            payloads: [
              payload({
                status: 'succeeded',
                attempt: 1,
                output,
                externalId: 'ORD-1001',
                artifacts: [{ id: 'art-1', data: artifactData, provenance: 'observed' }],
                taint: { secret: [], personal: [TAINT] },
              }),
            ],
          },
        },
      },
      {
        eventId: '8',
        markerRecordedEventAttributes: {
          markerName: 'core_local_activity',
          details: { result: { payloads: [payload(registry)] } },
        },
      },
      {
        eventId: '9',
        workflowExecutionSignaledEventAttributes: {
          signalName: 'approve',
          input: {
            payloads: [
              payload({ actionId: 'a1', actor: 'operator@example.com', reason: `ok for ${CUSTOMER}` }),
            ],
          },
        },
      },
      {
        eventId: '10',
        activityTaskFailedEventAttributes: {
          failure: { message: `no reply from ${PHONE}`, encodedAttributes: encrypted },
        },
      },
    ],
  };
  const invocations = [
    {
      runId: 'run-1',
      seq: 3,
      intents: [
        { seq: 3, attempt: 1, tool: 'order.read', args: { orderId: 'ORD-1001' }, argsDigest: 'sha256:args' },
      ],
      results: [
        { seq: 3, attempt: 1, status: 'succeeded', output, externalId: 'ORD-1001', artifactIds: ['art-1'] },
      ],
    },
  ];
  const artifacts = [
    {
      id: 'art-1',
      type: 'order',
      schemaVersion: '1',
      provenance: 'observed',
      data: artifactData,
      runId: 'run-1',
      seq: 3,
      attempt: 1,
      digest: jsonSha256(artifactData),
      recordedAt: '2026-12-05T00:00:00.000Z',
    },
  ];
  return {
    format: PROOF_BUNDLE_FORMAT,
    runId: 'run-1',
    exportedAt: '2026-12-05T00:00:00.000Z',
    chain: {
      chainStart: null,
      events: [{ seq: 1, body: '{"data":{"orderId":"ORD-1001"}}', prevHash: null, chainHash: null }],
    },
    invocations,
    artifacts,
    history,
    attestation: null,
    erasure: { erasures: [], openings: [] },
  };
}

/** The bundle's text with every base64 `data` of a payload decoded next to it. */
function fullText(b: ProofBundle): string {
  const decoded: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null)
      for (const [k, child] of Object.entries(v)) {
        if (k === 'data' && typeof child === 'string')
          decoded.push(Buffer.from(child, 'base64').toString('utf8'));
        walk(child);
      }
  };
  walk(b);
  return JSON.stringify(b) + decoded.join('\n');
}

const input = (b: ProofBundle): ProofInput => ({
  runId: b.runId,
  events: [],
  invocations: b.invocations as unknown as InvocationRecord[],
  artifacts: b.artifacts as unknown as StoredArtifact[],
  history: generationsFacts([b.history!]),
});

describe('redactProofBundle: every copy of an erasable value outside the chain withheld', () => {
  const original = bundle();
  const redacted = redactProofBundle(original, []);

  it('leaves no email, phone, name, requester or taint digest in any section, payloads decoded', () => {
    const before = fullText(original);
    for (const v of [EMAIL, PHONE, NAME, TAINT, 'eyJzdWIiOiJDMTAwMSJ9']) expect(before).toContain(v);
    const after = fullText(redacted);
    for (const v of [EMAIL, PHONE, NAME, TAINT, 'eyJzdWIiOiJDMTAwMSJ9']) expect(after).not.toContain(v);
    expect(after).toContain('[withheld by policy #');
  });

  it('keeps what the verifier checks byte for byte: the chain, signed decisions, the approver registry', () => {
    expect(redacted.chain).toEqual(original.chain);
    const events = (h: ProofBundle) => (h.history as { events: Record<string, unknown>[] }).events;
    expect(events(redacted)[3]).toEqual(events(original)[3]);
    expect(events(redacted)[4]).toEqual(events(original)[4]);
    // The requester appears nowhere but in those (a principal of the registry, a signed reason).
    const rest = fullText({
      ...redacted,
      history: { events: events(redacted).filter((_, i) => i !== 3 && i !== 4) },
    });
    expect(rest).not.toContain(CUSTOMER);
  });

  it('leaves payloads a codec encoded as they are (opaque)', () => {
    const failed = (redactedEvents: ProofBundle) =>
      (
        redactedEvents.history as {
          events: { activityTaskFailedEventAttributes?: { failure: { encodedAttributes: unknown } } }[];
        }
      ).events[5]!.activityTaskFailedEventAttributes!.failure.encodedAttributes;
    expect(failed(redacted)).toEqual(encrypted);
  });

  it('gives equal values equal tags within one export, other tags in another export', () => {
    const tagOf = (b: ProofBundle) =>
      (b.invocations[0]!.results[0] as { output: { phone: string } }).output.phone;
    expect(tagOf(redacted)).toMatch(/^\[withheld by policy #[0-9a-f]{32}\]$/);
    expect((redacted.artifacts[0]!.data as { phone: string }).phone).toBe(tagOf(redacted));
    expect(tagOf(redactProofBundle(original, []))).not.toBe(tagOf(redacted));
  });

  it('still verifies: the store and the history agree by their tags, the artifact digest is withheld and counted', () => {
    const history = checkHistory(input(redacted));
    expect(history.code, history.detail).toBe('history.ok');
    expect(history.detail).not.toContain('compared by position');
    const artifacts = checkArtifacts(input(redacted));
    expect(artifacts.code).toBe('artifacts.ok');
    expect(artifacts.detail).toContain('1 digest(s) withheld by policy');
    const counted = countWithheld(redacted);
    expect(counted.digests).toBe(1);
    expect(counted.invocations).toBe(2);
    expect(counted.histories).toBeGreaterThanOrEqual(8);
    expect(countWithheld(original).copies).toBe(0);
  });

  it('still catches tampering: a non-withheld field, a withheld value changed before export, a digest withheld alone', () => {
    const amount = structuredClone(redacted);
    (amount.invocations[0]!.results[0] as { output: { amountCents: number } }).output.amountCents = 1;
    expect(checkHistory(input(amount)).code).toBe('history.result_mismatch');

    const changed = bundle();
    (changed.invocations[0]!.results[0] as { output: { phone: string } }).output = {
      ...output,
      phone: '13900002002',
    };
    expect(checkHistory(input(redactProofBundle(changed, []))).code).toBe('history.result_mismatch');

    const data = structuredClone(redacted);
    (data.artifacts[0]!.data as { id: string }).id = 'ORD-6666';
    expect(checkHistory(input(data)).code).toBe('history.artifact_mismatch');

    const digest = structuredClone(redacted);
    digest.artifacts[0]!.data = { id: 'ORD-1001' };
    expect(checkArtifacts(input(digest)).code).toBe('artifacts.digest_mismatch');
  });

  it('compares by position, and says so, where only the store withheld (a codec history decoded after export)', () => {
    const mixed = { ...redacted, history: original.history };
    const history = checkHistory(input(mixed));
    expect(history.code, history.detail).toBe('history.ok');
    expect(history.detail).toMatch(/\d+ value\(s\) withheld in one record only, compared by position/);
  });

  it('learns values only the store still holds (openings) and withholds them inside other strings', () => {
    const b = bundle();
    (b.invocations[0]!.intents[0] as { args: Record<string, unknown> }).args = {
      orderId: 'ORD-1001',
      note: 'for Mrs Smithers',
    };
    expect(fullText(redactProofBundle(b, [])).includes('Smithers')).toBe(true);
    expect(fullText(redactProofBundle(b, ['Smithers'])).includes('Smithers')).toBe(false);
  });
});
