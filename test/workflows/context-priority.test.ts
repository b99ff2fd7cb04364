import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { loadRunPackages } from '../../src/activities/context/run-metrics.js';
import { renderRequest } from '../../src/activities/context/request-package.js';
import type { ContextPackage } from '../../src/activities/context/types.js';
import type { ModelScript } from '../../src/activities/model/scripted-script.js';
import type { ModelRequest } from '../../src/activities/model/types.js';
import { recordFixtureIfAsked } from '../support/record-fixture.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';

const ROUTE = 'ctx-priority@v1';
/** Small enough that the run's first turns do not fit beside its last ones. */
const WINDOW = 2_000;
const ORDERS = ['ORD-1001', 'ORD-1002', 'ORD-1003', 'ORD-1004', 'ORD-1005'];

/**
 * The model verifies a refund first (a verified observation: refund.verify records a `verified`
 * artifact), then reads five orders (unverified observations), then answers. Matched on the last
 * tool message, so what the window leaves out does not change the answers.
 */
const SCRIPT: ModelScript = {
  entries: [
    { match: { purpose: 'summarize' }, response: { text: 'an earlier read', toolCalls: [] } },
    {
      match: { step: 0 },
      response: {
        text: '',
        toolCalls: [{ name: 'refund.verify', version: 'v1', args: { refundId: 'RF-CTX-1' } }],
      },
    },
    ...ORDERS.map((orderId, k) => ({
      match: { contains: k === 0 ? 'RF-CTX-1' : ORDERS[k - 1]! },
      response: { text: '', toolCalls: [{ name: 'order.read', version: 'v1', args: { orderId } }] },
    })),
    { match: { contains: ORDERS.at(-1)! }, response: { text: 'done', toolCalls: [] } },
  ],
};

describe('context priority order (seed 004) on the request path, context/v4', () => {
  let h: HarnessFixture;
  const received: ModelRequest[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'context-priority-'));
    writeFileSync(join(dir, 'script.json'), JSON.stringify(SCRIPT));
    writeFileSync(
      join(dir, 'routes.json'),
      JSON.stringify({
        schemaVersion: 1,
        routes: {
          [ROUTE]: {
            provider: 'scripted',
            model: 'ctx-priority',
            script: 'script.json',
            contextWindow: WINDOW,
            maxOutputTokens: 200,
            prices: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
          },
        },
        purposes: { default: ROUTE },
      }),
    );
    h = await createHarnessFixture('context-priority', {
      env: { HARNESS_MODEL_ROUTES: join(dir, 'routes.json') },
    });
    const provider = h.composition.models.routesFile!.all().find((r) => r.key === ROUTE)!.provider;
    const stream = provider.stream.bind(provider);
    Object.assign(provider, {
      stream: (req: ModelRequest, opts: Parameters<typeof stream>[1]) => {
        received.push(structuredClone(req));
        return stream(req, opts);
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a verified observation is marked verified and sent right after the task, before memory and turns, when its own turn no longer fits', async () => {
    const handle = await h.start({
      profile: { name: 'support.answer', version: 'v1' },
      modelRoute: ROUTE,
      task: { message: 'check refund RF-CTX-1, then read my orders' },
    });
    const runId = handle.workflowId;
    const result = (await handle.result()) as AgentRunResult;
    expect(result).toMatchObject({ status: 'succeeded', output: 'done' });
    await recordFixtureIfAsked(h.t.client, runId, 'support-context-priority-v1');

    const packages = (await loadRunPackages(h.composition.store, runId)) as ContextPackage[];
    expect(packages).toHaveLength(ORDERS.length + 2);
    for (const pkg of packages) {
      expect(pkg.policyVersion).toBe('context/v4');
      // The window holds: the budget is the route's.
      expect(pkg.totalTokenEstimate).toBeLessThanOrEqual(pkg.availableTokens);
      expect(pkg.contextWindow).toBe(WINDOW);
      // Tool results without a verified artifact stay untrusted.
      for (const i of pkg.items.filter((x) => x.sourceRef.startsWith('tool://order.read@v1/')))
        expect(i.trust).toBe('untrusted');
    }
    const last = packages.at(-1)!;
    // The window overflowed: the oldest turns (the verification's among them) were left out or compacted.
    const verifyTurnSentWhole = last.items.some(
      (i) => i.itemId === `${runId}:a1` && i.message?.toolCalls?.[0]?.name === 'refund.verify',
    );
    expect(verifyTurnSentWhole).toBe(false);
    expect(last.omittedTurns).toMatchObject({ firstCall: 1 });
    // ... yet the verified observation is sent, marked verified, right after the instructions and the task.
    expect(last.items.slice(0, 2).map((i) => i.kind)).toEqual(['instruction', 'task_state']);
    const fact = last.items[2]!;
    expect(fact).toMatchObject({ kind: 'tool_fact', trust: 'verified', message: { role: 'user' } });
    expect(fact.sourceRef).toMatch(/^tool:\/\/refund\.verify@v1\/call\//);
    expect(fact.content).toContain('RF-CTX-1');
    // The request sent is the package: the fact reached the model as a fenced verified data block.
    const sent = received.find((r) => r.callId.startsWith(`${runId}:m${ORDERS.length + 2}:`))!;
    expect(renderRequest(last)).toEqual(sent.messages);
    expect(sent.messages[2]).toMatchObject({ role: 'user' });
    expect(sent.messages[2]!.content).toMatch(
      /^<<<DATA id=".*" kind="tool_fact" trust="verified" source="tool:\/\/refund\.verify@v1\//,
    );
  });
});
