import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_EVENTS } from '../../../src/contract/packed-events.js';
import type { ModelCallActivityInput } from '../../../src/contract/activity-interfaces.js';
import { createModelActivities } from '../../../src/activities/model-activities.js';
import { ModelRouter } from '../../../src/activities/model-router.js';
import { ScriptedProvider } from '../../../src/activities/model/scripted-provider.js';
import { parseModelScript } from '../../../src/activities/model/scripted-script.js';
import { openEvidenceStore, type EvidenceStore } from '../../../src/activities/store/index.js';
import { ToolRegistry } from '../../../src/registry/index.js';
import { newRunId } from './store/fixtures.js';

const outputSchema = {
  type: 'object',
  properties: { domain: { type: 'string', enum: ['orders', 'returns'] } },
  required: ['domain'],
};

describe("the model activity with outputCheck 'caller'", () => {
  let dir: string;
  let store: EvidenceStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'model-output-check-'));
    store = await openEvidenceStore(`sqlite:${join(dir, 'evidence.db')}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns an answer outside the schema as text; without it the call fails model.output_invalid', async () => {
    const provider = new ScriptedProvider(
      parseModelScript({ entries: [], fallback: { text: '{"domain":"weather"}' } }),
    );
    const models = new ModelRouter().register('scripted/test', provider, 'scripted');
    const activities = createModelActivities({ registry: new ToolRegistry(), store, models });
    const call = (runId: string, extra: Partial<ModelCallActivityInput>) =>
      new MockActivityEnvironment().run((i: ModelCallActivityInput) => activities.callModel(i), {
        runId,
        callSeq: 1,
        purpose: 'route',
        modelRoute: 'scripted/test',
        newMessages: [{ role: 'user', content: 'route me', trust: 'verified' }],
        toolKeys: [],
        outputSchema,
        events: NO_EVENTS,
        ...extra,
      } satisfies ModelCallActivityInput);

    const answered = await call(newRunId('output-check'), { outputCheck: 'caller' });
    expect(answered).toMatchObject({ text: '{"domain":"weather"}', stopReason: 'end_turn' });

    await expect(call(newRunId('output-check'), {})).rejects.toMatchObject({
      type: 'model.output_invalid',
      nonRetryable: true,
    });
  });
});
