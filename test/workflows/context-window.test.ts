import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_TASK_MESSAGE, benchScript } from '../../apps/bench/bench-script.js';
import { benchBudget } from '../../bench/lib/arms.js';
import type { AgentRunResult } from '../../src/workflows/temporal/agent-run.js';
import { renderRequest, requestTokens } from '../../src/activities/context/request-package.js';
import { contextMetricsOfRun, loadRunPackages } from '../../src/activities/context/run-metrics.js';
import { loadRequestPackage } from '../../src/activities/context/package-store.js';
import { countTokens } from '../../src/activities/context/tokenizer.js';
import { TOKENS_PER_MESSAGE } from '../../src/activities/context/tokenizer.js';
import type { ModelRequest } from '../../src/activities/model/types.js';
import { createHarnessFixture, type HarnessFixture } from '../support/harness.js';

/**
 * Steps of the run. `npm test` runs 80 (the window overflows after about 45); the done-when run of
 * issue 19 is `CONTEXT_WINDOW_STEPS=1000 npx vitest run test/workflows/context-window.test.ts`.
 */
const STEPS = Number(process.env.CONTEXT_WINDOW_STEPS ?? 80);
const WINDOW = 8_000;
const ROUTE = 'bench-window@v1';

async function allEvents(
  h: HarnessFixture,
  runId: string,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const out: { type: string; data: Record<string, unknown>; seq: number }[] = [];
  for (;;) {
    const page = await h.composition.store.listEvents(runId, {
      afterSeq: out.at(-1)?.seq ?? 0,
      limit: 5_000,
    });
    if (page.length === 0) return out;
    out.push(...page);
  }
}

describe('the request is the package: a long goal run against a route with an 8,000-token window', () => {
  let h: HarnessFixture;
  const received: ModelRequest[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'context-window-'));
    const script = benchScript(STEPS);
    // Summaries are asked with purpose `summarize` on the same pinned route (its only purpose).
    script.entries.unshift({
      match: { purpose: 'summarize' },
      response: { text: 'bench.noop answered with the next step number.', toolCalls: [] },
    });
    writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
    writeFileSync(
      join(dir, 'routes.json'),
      JSON.stringify({
        schemaVersion: 1,
        routes: {
          [ROUTE]: {
            provider: 'scripted',
            model: 'bench-window',
            script: 'script.json',
            contextWindow: WINDOW,
            prices: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
          },
        },
        purposes: { default: ROUTE },
      }),
    );
    h = await createHarnessFixture('context-window', {
      env: { HARNESS_MODEL_ROUTES: join(dir, 'routes.json') },
    });
    // What the provider received, recorded at the provider itself (the real scripted provider answers).
    const route = h.composition.models.routesFile!.all().find((r) => r.key === ROUTE)!;
    const provider = route.provider;
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

  it(`${STEPS} steps: no request over the window, and every stored package is exactly the request sent`, async () => {
    const started = Date.now();
    const handle = await h.start({
      profile: { name: 'bench.steps', version: 'v1' },
      modelRoute: ROUTE,
      task: { message: BENCH_TASK_MESSAGE },
      budget: benchBudget(STEPS),
    });
    const result = (await h.t.client.workflow.getHandle(handle.workflowId).result()) as AgentRunResult;
    const seconds = (Date.now() - started) / 1000;
    console.log(`context-window: ${STEPS} steps in ${seconds.toFixed(1)} s`);
    expect(result).toMatchObject({ status: 'succeeded', output: 'done' });

    const runId = handle.workflowId;
    const decide = received.filter((r) => r.purpose === 'decide' && r.callId.startsWith(`${runId}:`));
    expect(decide).toHaveLength(STEPS + 1);
    // The window, counted independently on what the provider received: messages, tools and the
    // answer bound the request carried.
    for (const req of decide) {
      const tools = req.tools
        ? countTokens(JSON.stringify(req.tools)) + req.tools.length * TOKENS_PER_MESSAGE
        : 0;
      expect(req.maxOutputTokens).toBe(2_000);
      expect(requestTokens(req.messages, countTokens) + tools + req.maxOutputTokens!).toBeLessThanOrEqual(
        WINDOW,
      );
    }

    const groups = await h.composition.store.listMessageGroups(runId);
    expect(groups).toHaveLength(STEPS + 1);
    const over: boolean[] = [];
    for (const [position, g] of groups.entries()) {
      const body = g.messages[0] as { context: { ref: string; packageId: string; totalTokens: number } };
      const pkg = await loadRequestPackage(h.composition.store, body.context.ref);
      const sent = decide.find((r) => r.callId.startsWith(`${runId}:m${g.seq}:`))!;
      // The package is what was sent: it renders to the received messages exactly.
      expect(renderRequest(pkg)).toEqual(sent.messages);
      expect(pkg).toMatchObject({
        route: ROUTE,
        contextWindow: WINDOW,
        outputReserve: 2_000,
        tokenizer: 'o200k_base',
      });
      expect(pkg.totalTokenEstimate).toBe(requestTokens(sent.messages, countTokens));
      expect(pkg.totalTokenEstimate).toBeLessThanOrEqual(pkg.availableTokens);
      // ... and what was left out: every item of the transcript so far (instructions, task, then a
      // model answer and a tool result per earlier call) is sent or listed as left out, never both.
      const sentIds = pkg.items.map((i) => i.summaryOf ?? i.itemId);
      expect(new Set(sentIds).size).toBe(sentIds.length);
      for (const id of pkg.omittedItemRefs) expect(sentIds).not.toContain(id);
      // The oldest turns are left out as one range, and nothing of theirs is sent.
      const cut = pkg.omittedTurns;
      if (cut) {
        expect(cut.firstCall).toBe(1);
        for (const id of sentIds) {
          const call = /:(?:a|m)(\d+)(?::|$)/.exec(id);
          if (call && !id.includes(':m1:')) expect(Number(call[1])).toBeGreaterThan(cut.lastCall);
        }
      }
      expect(sentIds.length + pkg.omittedItemRefs.length + (cut?.items ?? 0)).toBe(2 + 2 * position);
      over.push(pkg.omittedItemRefs.length > 0 || cut !== undefined);
      // The system instructions and the task are always sent.
      expect(pkg.items.slice(0, 2).map((i) => i.kind)).toEqual(['instruction', 'task_state']);
    }
    // The window overflowed part way, and from then on every request left something out.
    const first = over.indexOf(true);
    expect(first).toBeGreaterThan(0);
    expect(over.slice(first).every(Boolean)).toBe(true);
    const overflowed = over.length - first;
    // The context metrics of seed 004 on this real run (docs/context.md, "Context metrics").
    const metrics = contextMetricsOfRun({
      runId,
      packages: await loadRunPackages(h.composition.store, runId),
      events: await allEvents(h, runId),
      labels: { requiredFacts: ['bench.noop'], relevantFacts: ['bench.noop', `message://${runId}`] },
    });
    expect(metrics).toMatchObject({
      packages: STEPS + 1,
      staleRate: 0,
      unauthorizedRate: 0,
      separationPassRate: 1,
      packagesOverWindow: overflowed,
    });
    expect(metrics.separationViolations).toEqual([]);
    // Every call but the first saw a bench.noop result; the first had none to see.
    expect(metrics.requiredFactRecall).toBeCloseTo(STEPS / (STEPS + 1), 10);
    // The relevant items are the tool results and the task: the model's own turns are not.
    expect(metrics.precision).toBeGreaterThan(0.4);
    expect(metrics.precision).toBeLessThan(0.6);
    expect(metrics.tokensPerSuccessfulStep).toBe(110);
    // A late request carries far fewer turns than the run had.
    const last = decide.at(-1)!;
    expect(last.messages.filter((m) => m.role === 'assistant').length).toBeLessThanOrEqual(first);
  }, 3_600_000);
});
