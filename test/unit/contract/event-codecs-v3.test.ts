import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import {
  dataDefaults,
  packData,
  unpackData,
  type CodecContext,
} from '../../../src/contract/event-codecs-v3.js';
import type { RunHeader } from '../../../src/contract/packed-events.js';

/**
 * The third step format's packer decides from a few checks, not from running the round trip per
 * event (event-codecs-v3.ts). This pins that the checks decide exactly as the round trip does: the
 * packer as it was, which ran {@link unpackData} and compared canonical JSON for every event, is the
 * reference, and both must give the same item for any JSON data, defaults and run.
 */
function roundTripPackData(
  type: string,
  data: Readonly<Record<string, unknown>>,
  ctx: CodecContext,
): { readonly d?: unknown; readonly x?: unknown } {
  const x: Record<string, unknown> = {};
  const dflt = dataDefaults(type, ctx);
  const short = shortened(type, data, ctx.run);
  if (!dflt && short === data) return { d: data };
  for (const [k, v] of Object.entries(short)) {
    if (v === undefined) continue;
    if (!dflt || !Object.hasOwn(dflt, k) || canonicalJson(v) !== canonicalJson(dflt[k])) x[k] = v;
  }
  if (dflt && Object.keys(dflt).some((k) => !Object.hasOwn(short, k))) return { d: data };
  if (canonicalJson(unpackData(type, x, ctx)) !== canonicalJson(data)) return { d: data };
  return Object.keys(x).length === 0 ? {} : { x };
}

/** The format's shortening, as event-codecs-v3.ts writes it. */
function shortened(type: string, data: Readonly<Record<string, unknown>>, run: RunHeader) {
  if (type === 'model.completed') {
    const c = data.context as { packageId?: unknown; digest?: unknown } | undefined;
    if (c && typeof c.digest === 'string' && c.packageId === `${run.runId}:ctx${String(data.callSeq)}`)
      return { ...data, context: c.digest };
  }
  if (type === 'tool.proposed' && typeof data.proposalId === 'string') {
    if (data.proposalId.startsWith(`${run.runId}:`))
      return { ...data, proposalId: data.proposalId.slice(run.runId.length) };
  }
  return data;
}

const TYPES = ['model.completed', 'policy.decided', 'tool.completed', 'tool.proposed', 'model.started'];
const run = (runId: string): RunHeader => ({
  runId,
  threadId: runId,
  versions: {
    profile: 'p@v1',
    policy: 'read_only@v1',
    toolRegistryDigest: 'sha256:0',
    modelRoute: 'r',
    configDigest: 'sha256:1',
  },
});

/** Values that hit the defaults, the shortening and its edges, and anything else JSON. */
function valueFor(runId: string): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>(
      'decide',
      'tool_calls',
      false,
      1,
      2,
      'dispatch',
      'allow',
      'read_only@v1',
      [],
      { source: 'code', policy: 'read_only@v1' },
      { policy: 'read_only@v1', source: 'code' },
      'succeeded',
      null,
      undefined,
      `${runId}:p1`,
      ':p1',
      'sha256:abc',
      { packageId: `${runId}:ctx3`, digest: 'sha256:abc' },
      { packageId: `${runId}:ctx3`, digest: 'sha256:abc', extra: 1 },
      { packageId: `${runId}:ctx3`, digest: 'sha256:abc', extra: undefined },
      { packageId: `${runId}:ctx4`, digest: 'sha256:abc' },
      { packageId: `${runId}:ctx3`, digest: 7 },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  );
}

const KEYS = [
  'purpose',
  'stopReason',
  'replayed',
  'activityAttempt',
  'stage',
  'decision',
  'policyVersion',
  'obligations',
  'rules',
  'status',
  'externalId',
  'resolvedBy',
  'context',
  'proposalId',
  'tool',
  'toolCalls',
];

const caseArb = fc.constantFrom('r-1', '').chain((runId) =>
  fc.record({
    runId: fc.constant(runId),
    type: fc.constantFrom(...TYPES),
    data: fc.dictionary(fc.constantFrom(...KEYS), valueFor(runId), { maxKeys: 10 }),
    callSeq: fc.constantFrom<unknown>(3, 4, undefined, '3'),
    input: fc.option(
      fc.dictionary(
        fc.constantFrom('tool', 'toolCalls', 'context', 'status'),
        valueFor(runId).filter((v) => v !== undefined),
        { maxKeys: 3 },
      ),
      { nil: undefined },
    ),
  }),
);

describe('the third step format packs data as its round trip decides (event-codecs-v3.ts)', () => {
  it('gives the same item as running the round trip, for any JSON data, defaults and run', () => {
    fc.assert(
      fc.property(caseArb, ({ runId, type, data, callSeq, input }) => {
        const d: Record<string, unknown> = callSeq === undefined ? { ...data } : { ...data, callSeq };
        const ctx: CodecContext = { run: run(runId), input };
        const packed = packData(type, d, ctx);
        expect(packed).toStrictEqual(roundTripPackData(type, d, ctx));
        // And what it packs comes back: the data itself, or the round trip of what it kept.
        const back = packed.d ?? unpackData(type, packed.x, ctx);
        expect(canonicalJson(back)).toBe(canonicalJson(d));
      }),
      { numRuns: 5_000 },
    );
  });

  it('keeps the data whole at each edge the round trip would not give back', () => {
    const ctx: CodecContext = { run: run('r-1'), input: undefined };
    const ctx3 = {
      purpose: 'decide',
      stopReason: 'tool_calls',
      replayed: false,
      activityAttempt: 1,
      callSeq: 3,
    };
    const edges: [string, Record<string, unknown>][] = [
      ['model.completed', { ...ctx3, context: 'sha256:abc' }],
      ['model.completed', { ...ctx3, context: { packageId: 'r-1:ctx3', digest: 'sha256:abc', more: 1 } }],
      ['model.completed', { ...ctx3, stopReason: undefined }],
      ['model.completed', { purpose: 'decide', callSeq: 3 }],
      ['tool.proposed', { tool: 't', proposalId: ':p1' }],
    ];
    for (const [type, data] of edges) expect(packData(type, data, ctx)).toStrictEqual({ d: data });
    // The shortenings themselves still apply.
    const short = packData(
      'model.completed',
      { ...ctx3, context: { packageId: 'r-1:ctx3', digest: 'sha256:abc' } },
      ctx,
    );
    expect(short).toStrictEqual({ x: { callSeq: 3, context: 'sha256:abc' } });
    expect(packData('tool.proposed', { tool: 't', proposalId: 'r-1:p1' }, ctx)).toStrictEqual({
      x: { tool: 't', proposalId: ':p1' },
    });
  });
});
