import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_EVENTS } from '../../../src/contract/packed-events.js';
import type { ModelDecision, ModelMessageInput } from '../../../src/workflows/runner/ports.js';
import type { ModelCallActivityInput } from '../../../src/contract/activity-interfaces.js';
import { createModelActivities } from '../../../src/activities/model-activities.js';
import { ModelRouter } from '../../../src/activities/model-router.js';
import { loadRequestPackage } from '../../../src/activities/context/package-store.js';
import { renderRequest, requestTokens } from '../../../src/activities/context/request-package.js';
import { countTokens } from '../../../src/activities/context/tokenizer.js';
import type { ModelProvider, ModelRequest } from '../../../src/activities/model/types.js';
import { openEvidenceStore, type EvidenceStore } from '../../../src/activities/store/index.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { intent, newRunId, result } from './store/fixtures.js';

/** Answers `decide` with a tool call and `summarize` with a summary; keeps every request. */
class WindowProvider implements ModelProvider {
  readonly name = 'scripted';
  readonly requests: ModelRequest[] = [];
  failSummaries = false;

  stream(req: ModelRequest): ReturnType<ModelProvider['stream']> {
    this.requests.push(structuredClone(req));
    if (req.purpose === 'summarize' && this.failSummaries)
      return Promise.reject(
        Object.assign(new Error('summarizer down'), { code: 'model.provider_unavailable' }),
      );
    const k = this.requests.filter((r) => r.purpose === req.purpose).length;
    return Promise.resolve({
      text: req.purpose === 'summarize' ? `page ${k} read: 400 ledger lines, all balanced.` : '',
      toolCalls:
        req.purpose === 'summarize'
          ? []
          : [{ id: `c${k}`, name: 'ledger.read', version: 'v1', args: { page: k }, rawArguments: '{}' }],
      stopReason: req.purpose === 'summarize' ? 'end_turn' : 'tool_calls',
      usage: { inputTokens: 100, outputTokens: req.purpose === 'summarize' ? 7 : 3 },
      costUsd: 0,
      providerModel: 'window',
    });
  }
}

describe('the model activity within a route window: summaries of purpose summarize', () => {
  let dir: string;
  let store: EvidenceStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'model-window-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function converse(provider: WindowProvider, runId: string, calls: number): Promise<ModelDecision[]> {
    const models = new ModelRouter().register('window/test', provider, 'm', { contextWindow: 4_000 });
    const activities = createModelActivities({ registry: new ToolRegistry(), store, models });
    const out: ModelDecision[] = [];
    for (let k = 1; k <= calls; k++) {
      if (k > 1) {
        await store.recordIntent(intent(runId, k - 1, { effect: 'read', tool: 'ledger.read' }));
        await store.recordResult(
          result(runId, k - 1, { output: { page: k - 1, lines: 'ledger line '.repeat(150) } }),
          [],
        );
      }
      const newMessages: ModelMessageInput[] =
        k === 1
          ? [
              { role: 'system', content: 'Reconcile the ledger page by page.', trust: 'system' },
              { role: 'user', content: 'Reconcile it.', trust: 'untrusted' },
            ]
          : [{ role: 'tool', content: '', toolCallId: `c${k - 1}`, resultOf: k - 1, trust: 'untrusted' }];
      const input: ModelCallActivityInput = {
        runId,
        callSeq: k,
        purpose: 'decide',
        modelRoute: 'window/test',
        newMessages,
        toolKeys: [],
        events: NO_EVENTS,
      };
      out.push(
        await new MockActivityEnvironment().run(
          (i: ModelCallActivityInput) => activities.callModel(i),
          input,
        ),
      );
    }
    return out;
  }

  it('summarises each older observation once, as a model artifact, and sends exactly the stored package', async () => {
    const runId = newRunId('window');
    const provider = new WindowProvider();
    const decisions = await converse(provider, runId, 14);
    const decide = provider.requests.filter((r) => r.purpose === 'decide');
    const summarize = provider.requests.filter((r) => r.purpose === 'summarize');
    expect(decide).toHaveLength(14);
    expect(summarize.length).toBeGreaterThan(0);
    // The summarize request: harness instructions, the observation as a data block.
    expect(summarize[0]!.messages[0]).toMatchObject({ role: 'system' });
    expect(summarize[0]!.messages[1]!.content).toMatch(/^<<<DATA id=.* kind="tool_fact" trust="untrusted"/);

    const groups = await store.listMessageGroups(runId);
    const summarized = new Set<string>();
    for (const [i, g] of groups.entries()) {
      const body = g.messages[0] as { context: { ref: string; summaries?: { calls: number } } };
      const pkg = await loadRequestPackage(store, body.context.ref);
      expect(renderRequest(pkg)).toEqual(decide[i]!.messages);
      expect(requestTokens(decide[i]!.messages, countTokens)).toBe(pkg.totalTokenEstimate);
      expect(pkg.totalTokenEstimate).toBeLessThanOrEqual(4_000 - 1_000);
      expect(decide[i]!.maxOutputTokens).toBe(1_000);
      for (const item of pkg.items.filter((x) => x.summaryOf && x.kind === 'tool_fact')) {
        expect(item.trust).toBe('untrusted');
        expect(item.content).toContain('ledger lines, all balanced');
        summarized.add(item.summaryOf!);
      }
    }
    // Each observation was summarised once, whatever number of packages it appears in.
    expect(summarize).toHaveLength(summarized.size);
    const artifacts = (await store.listArtifacts(runId)).filter((a) => a.type === 'context.summary');
    expect(artifacts).toHaveLength(summarized.size);
    expect(artifacts.every((a) => a.provenance === 'model')).toBe(true);
    // The summaries' usage is counted with the call that made them, once.
    const total = decisions.reduce((n, d) => n + d.usage.outputTokens, 0);
    expect(total).toBe(14 * 3 + summarize.length * 7);
  });

  it('a summarize failure never fails the call: the reference is sent alone', async () => {
    const runId = newRunId('window');
    const provider = new WindowProvider();
    provider.failSummaries = true;
    await converse(provider, runId, 10);
    const groups = await store.listMessageGroups(runId);
    const last = (groups.at(-1)!.messages[0] as { context: { ref: string } }).context.ref;
    const pkg = await loadRequestPackage(store, last);
    const stand = pkg.items.filter((x) => x.summaryOf && x.kind === 'tool_fact');
    expect(stand.length).toBeGreaterThan(0);
    expect(stand.every((x) => x.content.includes('(no summary available: read the reference)'))).toBe(true);
    expect((await store.listArtifacts(runId)).filter((a) => a.type === 'context.summary')).toEqual([]);
  });
});
