import { describe, expect, it } from 'vitest';
import { planRequest } from '../../../../src/activities/context/plan-request.js';
import {
  renderRequest,
  requestTokens,
  type TranscriptGroup,
  type TurnMemo,
} from '../../../../src/activities/context/request-package.js';
import {
  countTokens,
  countWith,
  defaultTokenizer,
  estimateTokens,
} from '../../../../src/activities/context/tokenizer.js';
import { NO_SUMMARY, SUMMARY_MAX_TOKENS } from '../../../../src/activities/context/transcript-items.js';
import { DATA_NOTICE } from '../../../../src/activities/context/render.js';
import type { ModelMessageInput } from '../../../../src/workflows/runner/ports.js';
import { memoryMessages } from '../../../../src/workflows/runner/goal-profile.js';
import type { MemoryEntry } from '../../../../src/contract/memory.js';
import { RUN, NOW, conversation, input, count, wellFormed } from './request-package-fixtures.js';

describe('planRequest: the request is the package', () => {
  it('sends the whole conversation when it fits, in order, the notice in the system message only', () => {
    const plan = planRequest(input(3, 100_000));
    expect(plan.pkg.omittedItemRefs).toEqual([]);
    expect(plan.wanted).toEqual([]);
    expect(plan.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(plan.messages[0]!.content).toBe(`You are a careful agent.\n\n${DATA_NOTICE}`);
    expect(plan.messages.slice(1).every((m) => !m.content.includes(DATA_NOTICE))).toBe(true);
    expect(plan.messages[1]!.content).toMatch(/^<<<DATA id=.* kind="task_state" trust="untrusted"/);
    expect(plan.pkg.items.map((i) => i.kind)).toEqual([
      'instruction',
      'task_state',
      ...['conversation', 'tool_fact', 'conversation', 'tool_fact', 'conversation', 'tool_fact'],
    ]);
    // The stored package renders to exactly what is sent, and its total is the request's tokens.
    expect(renderRequest(plan.pkg)).toEqual(plan.messages);
    expect(plan.pkg.totalTokenEstimate).toBe(requestTokens(plan.messages, count));
    expect(plan.pkg).toMatchObject({
      contextWindow: 100_000,
      outputReserve: 500,
      requestOverhead: 100,
      builtAt: NOW,
    });
  });

  it('within a small window: mandatory items, the newest turns whole, older ones summarised, the oldest left out', () => {
    const first = planRequest(input(60, 8_000));
    const available = 8_000 - 500 - 100;
    expect(first.pkg.availableTokens).toBe(available);
    expect(first.pkg.totalTokenEstimate).toBeLessThanOrEqual(available);
    expect(requestTokens(first.messages, count)).toBe(first.pkg.totalTokenEstimate);
    expect(wellFormed(first.messages)).toBe(true);
    const kinds = first.pkg.omissions.map((o) => o.reason);
    expect(kinds).toContain('summarized');
    // The oldest turns are left out together, as one range of calls: the context is always the
    // newest turns without a gap, and the package does not grow with the run.
    const cutTurns = first.pkg.omittedTurns!;
    expect(cutTurns.firstCall).toBe(1);
    expect(cutTurns.lastCall).toBeGreaterThan(1);
    expect(cutTurns.items).toBe(2 * cutTurns.lastCall);
    const calls = first.pkg.items.flatMap((i) => {
      const m = /:(?:a|m)(\d+)(?::|$)/.exec(i.summaryOf ?? i.itemId);
      return m && !i.itemId.includes(':m1:') ? [Number(m[1])] : [];
    });
    expect(Math.min(...calls)).toBe(cutTurns.lastCall + 1);
    // Everything valid is either sent (whole or as a summary) or left out, never both: the
    // transcript's 2 + 2 x 60 items.
    const sent = new Set(first.pkg.items.map((i) => i.itemId));
    const stoodIn = new Set(first.pkg.items.flatMap((i) => (i.summaryOf ? [i.summaryOf] : [])));
    for (const id of first.pkg.omittedItemRefs) expect(sent.has(id)).toBe(false);
    for (const id of stoodIn) expect(first.pkg.omittedItemRefs).toContain(id);
    const shown = new Set(first.pkg.items.map((i) => i.summaryOf ?? i.itemId));
    expect(shown.size + first.pkg.omittedItemRefs.length - stoodIn.size + cutTurns.items).toBe(2 + 2 * 60);
    // The instructions and the task are always there; the newest result is sent whole.
    expect(first.pkg.items.slice(0, 2).map((i) => i.kind)).toEqual(['instruction', 'task_state']);
    expect(first.pkg.items.at(-1)).toMatchObject({ itemId: `${RUN}:m61:0`, kind: 'tool_fact' });
    expect(first.pkg.items.at(-1)?.summaryOf).toBeUndefined();
    // Summaries are model artifacts: never more than untrusted.
    const summaries = first.pkg.items.filter((i) => i.kind === 'tool_fact' && i.summaryOf);
    expect(summaries.length).toBeGreaterThan(0);
    expect(
      summaries.every((i) => i.trust === 'untrusted' && i.sourceRef.startsWith('artifact://ctx-summary:')),
    ).toBe(true);
    expect(first.wanted.map((i) => i.itemId)).toEqual(summaries.map((i) => i.summaryOf));

    // With the summaries made, the same items are chosen and none is wanted any more.
    const long = 'the ledger page was read; 12 lines, balance 0. '.repeat(20);
    const done = planRequest({
      ...input(60, 8_000),
      summaries: new Map(first.wanted.map((i) => [i.itemId, long])),
    });
    expect(done.wanted).toEqual([]);
    expect(done.pkg.items.map((i) => i.itemId)).toEqual(first.pkg.items.map((i) => i.itemId));
    expect(done.pkg.totalTokenEstimate).toBeLessThanOrEqual(available);
    const one = done.pkg.items.find((i) => i.summaryOf && i.kind === 'tool_fact')!;
    expect(count(one.content.slice(one.content.indexOf('Summary: ') + 9))).toBeLessThanOrEqual(
      SUMMARY_MAX_TOKENS,
    );
    expect(first.pkg.items.find((i) => i.itemId === one.itemId)?.content).toContain(NO_SUMMARY);
  });

  it('plans the same request with the turns measured by earlier calls, keeping only those it can still send', () => {
    const memo: TurnMemo = { tokenizer: 'o200k_base', turns: new Map() };
    for (let turns = 20; turns <= 90; turns++) {
      const fresh = planRequest(input(turns, 8_000));
      const remembered = planRequest({ ...input(turns, 8_000), memo });
      expect(remembered.pkg).toEqual(fresh.pkg);
      expect(remembered.messages).toEqual(fresh.messages);
      expect(remembered.wanted).toEqual(fresh.wanted);
      // The memo holds the turns from the oldest one sent up to the one before the newest.
      const oldest = (fresh.pkg.omittedTurns?.lastCall ?? 0) + 1;
      expect(Math.min(...memo.turns.keys())).toBe(oldest);
      expect(Math.max(...memo.turns.keys())).toBe(turns - 1);
      expect(memo.turns.size).toBe(turns - oldest);
    }
    // Another tokenizer counts differently: the memo starts again rather than mixing counts.
    const other = planRequest({
      ...input(90, 8_000),
      budget: { ...input(90, 8_000).budget, tokenizer: 'estimate' },
      memo,
    });
    expect(memo.tokenizer).toBe('estimate');
    expect(other.pkg).toEqual(
      planRequest({ ...input(90, 8_000), budget: { ...input(90, 8_000).budget, tokenizer: 'estimate' } }).pkg,
    );
  });

  it('measures only the turns the window can hold, however long the run (the cost of a call is flat)', () => {
    // Counted tokenizer calls stand in for time: a plan at 2,000 turns and at 400 turns of the same
    // full window measure the same number of texts.
    const texts = (turns: number, memo?: TurnMemo): number => {
      let n = 0;
      const counting = (t: string): number => {
        n += 1;
        return count(t);
      };
      planRequest({ ...input(turns, 8_000), count: counting, ...(memo ? { memo } : {}) });
      return n;
    };
    expect(texts(2_000)).toBe(texts(400));
    // With the turns measured by the run's previous call, a call measures only what is new.
    const memo: TurnMemo = { tokenizer: 'o200k_base', turns: new Map() };
    texts(1_999, memo);
    const remembered = texts(2_000, memo);
    expect(remembered).toBeLessThan(texts(2_000));
    const later: TurnMemo = { tokenizer: 'o200k_base', turns: new Map() };
    texts(3_999, later);
    expect(texts(4_000, later)).toBe(remembered);
    // The memo holds only the turns still sent.
    expect(later.turns.size).toBe(memo.turns.size);
    expect(memo.turns.size).toBeLessThan(60);
  });

  it('counts every transcript item exactly once: sent, left out, expired, or in the cut range', () => {
    const base = input(60, 8_000);
    // An expired memory message in every call after the first: whichever turn is cut holds one.
    const expired = (k: number): ModelMessageInput => ({
      role: 'user',
      content: `stale fact ${k}`,
      trust: 'verified',
      memory: { sourceRef: `memory://t1/stale-${k}`, expiresAt: '2026-01-01T00:00:00Z' },
    });
    const groups = base.groups.map((g) => (g.seq === 1 ? g : { ...g, input: [...g.input, expired(g.seq)] }));
    const plan = planRequest({ ...base, groups, newMessages: [...base.newMessages, expired(61)] });
    const cut = plan.pkg.omittedTurns!;
    expect(cut).toBeDefined();
    const stoodIn = new Set(plan.pkg.items.flatMap((i) => (i.summaryOf ? [i.summaryOf] : [])));
    const shown = new Set(plan.pkg.items.map((i) => i.summaryOf ?? i.itemId));
    const listed = new Set([...plan.pkg.omittedItemRefs, ...plan.pkg.droppedExpiredRefs]);
    for (const id of listed) expect(shown.has(id) && !stoodIn.has(id)).toBe(false);
    // 2 first-call items, and per call after it an answer, a result and the expired fact.
    expect(shown.size + listed.size - stoodIn.size + cut.items).toBe(2 + 3 * 60);
    // The expired facts of the turns sent and of the cut turn are listed; older ones are in the range.
    expect(plan.pkg.droppedExpiredRefs.length).toBe(61 - cut.lastCall);
  });

  it('never goes over the window at any length of conversation', () => {
    for (const turns of [0, 1, 5, 30, 120, 400]) {
      const plan = planRequest(input(turns, 8_000));
      expect(requestTokens(plan.messages, count)).toBeLessThanOrEqual(8_000 - 600);
      expect(wellFormed(plan.messages)).toBe(true);
    }
  });

  it('records what the scan of a tool result found, without changing what is sent', () => {
    const plain = planRequest(input(2, 100_000));
    const scanned = planRequest({
      ...input(2, 100_000),
      scan: (i) =>
        i.itemId.endsWith(':m2:0')
          ? {
              guardrail: { verdict: 'flag', reasonCodes: ['guardrail.input.injection_marker'] },
              access: 'internal',
            }
          : { access: 'internal' },
    });
    expect(scanned.messages).toEqual(plain.messages);
    expect(scanned.pkg.items.filter((i) => i.guardrail).map((i) => i.itemId)).toEqual([`${RUN}:m2:0`]);
    // context/v3: no access labels.
    expect(scanned.pkg.items.some((i) => i.access !== undefined)).toBe(false);
  });

  it('context/v4 with withholdFlagged: a flagged tool result is replaced by a notice, labelled, and listed as withheld', () => {
    const flaggedId = `${RUN}:m2:0`;
    const plan = planRequest({
      ...input(2, 100_000),
      priority: true,
      withholdFlagged: true,
      scan: (i) =>
        i.itemId === flaggedId
          ? { guardrail: { verdict: 'block', reasonCodes: ['guardrail.input.secret'] }, access: 'restricted' }
          : { access: 'public' },
    });
    const stand = plan.pkg.items.find((i) => i.withheldOf === flaggedId)!;
    expect(stand).toMatchObject({
      itemId: `${flaggedId}:withheld`,
      trust: 'untrusted',
      access: 'restricted',
    });
    expect(stand.guardrail).toEqual({ verdict: 'block', reasonCodes: ['guardrail.input.secret'] });
    expect(stand.content).toContain('withheld');
    expect(plan.pkg.items.some((i) => i.itemId === flaggedId)).toBe(false);
    expect(plan.pkg.omissions).toContainEqual({ itemId: flaggedId, reason: 'withheld' });
    // Every item carries an access label; the call the output answered still has its tool message.
    expect(plan.pkg.items.every((i) => i.access !== undefined)).toBe(true);
    expect(wellFormed(plan.messages)).toBe(true);
  });

  it('drops expired memory, keeps live memory right after the task', () => {
    const { groups } = conversation(1);
    const memory = (name: string, expiresAt: string): ModelMessageInput => ({
      role: 'user',
      content: `${name}=true`,
      trust: 'verified',
      memory: { sourceRef: `memory://t1/${name}`, expiresAt },
    });
    const g0 = {
      ...groups[0]!,
      input: [
        ...groups[0]!.input,
        memory('fresh', '2027-01-01T00:00:00Z'),
        memory('old', '2026-01-01T00:00:00Z'),
      ],
    };
    const plan = planRequest({ ...input(1, 100_000), groups: [g0] });
    expect(plan.pkg.droppedExpiredRefs).toEqual([`${RUN}:m1:3`]);
    expect(plan.pkg.items[2]).toMatchObject({
      kind: 'memory',
      trust: 'verified',
      sourceRef: 'memory://t1/fresh',
    });
  });

  it('context/v4: verified results of earlier turns come right after the task, before memory and retrieved references; their turns send a reference', () => {
    const { groups, next } = conversation(4, 240);
    const verified = (g: TranscriptGroup): TranscriptGroup => ({
      ...g,
      input: g.input.map((m) => (m.role === 'tool' ? { ...m, trust: 'verified' as const } : m)),
    });
    const memory: ModelMessageInput = {
      role: 'user',
      content: 'fresh=true',
      trust: 'verified',
      memory: { sourceRef: 'memory://t1/fresh' },
    };
    const g = [
      { ...groups[0]!, input: [...groups[0]!.input, memory] },
      verified(groups[1]!),
      groups[2]!,
      groups[3]!,
    ];
    const retrieved = {
      itemId: `${RUN}:r5:0`,
      kind: 'retrieved_evidence' as const,
      trust: 'untrusted' as const,
      sourceRef: 'retrieval://doc-1',
      content: 'kb://ledger (score 1.000): ledgers close monthly',
      access: 'public' as const,
      message: { role: 'user' as const },
    };
    const base = { ...input(4, 100_000), groups: g, newMessages: next };
    const v3 = planRequest(base);
    expect(v3.pkg.items.map((i) => i.kind).slice(0, 3)).toEqual(['instruction', 'task_state', 'memory']);
    // context/v3 sends the result in its turn, as the tool message.
    expect(v3.pkg.items.find((i) => i.itemId === `${RUN}:m2:0`)?.message?.role).toBe('tool');
    const v4 = planRequest({ ...base, priority: true, policyVersion: 'context/v4', retrieved: [retrieved] });
    const head = v4.pkg.items.slice(0, 5);
    expect(head.map((i) => [i.kind, i.trust])).toEqual([
      ['instruction', 'system'],
      ['task_state', 'untrusted'],
      ['tool_fact', 'verified'],
      ['retrieved_evidence', 'untrusted'],
      ['memory', 'verified'],
    ]);
    const fact = head[2]!;
    expect(fact).toMatchObject({ itemId: `${RUN}:m2:0`, message: { role: 'user' } });
    // Its own turn answers the same call with a reference; sent once, the conversation well formed.
    expect(v4.pkg.items.filter((i) => i.itemId === fact.itemId)).toHaveLength(1);
    expect(v4.pkg.items.find((i) => i.itemId === `${fact.itemId}:ref`)?.message).toEqual({
      role: 'tool',
      toolCallId: 'c1',
    });
    expect(wellFormed(v4.messages)).toBe(true);
    expect(renderRequest(v4.pkg)).toEqual(v4.messages);
  });

  it("the goal profile's recalled memory becomes memory items of trust verified, the expired one dropped", () => {
    const entry = (name: string, expiresAt: string | null): MemoryEntry => ({
      entryId: `run-0:memory:${name}`,
      scope: { threadId: 't1' },
      name,
      value: true,
      trust: 'verified',
      provenance: {
        runId: 'run-0',
        evidenceArtifactId: 'a1',
        evidenceProvenance: 'tool',
        policyVersion: 'p@v1',
      },
      createdAt: '2026-11-01T00:00:00Z',
      expiresAt,
    });
    const { next } = conversation(0);
    const plan = planRequest({
      ...input(0, 100_000),
      newMessages: [
        ...next,
        ...memoryMessages([entry('owner_verified', null), entry('old', '2026-01-01T00:00:00Z')]),
      ],
    });
    expect(plan.pkg.items.map((i) => [i.kind, i.trust, i.sourceRef])).toEqual([
      ['instruction', 'system', `message://${RUN}/1/0`],
      ['task_state', 'untrusted', `message://${RUN}/1/1`],
      ['memory', 'verified', 'memory://run-0:memory:owner_verified'],
    ]);
    expect(plan.pkg.droppedExpiredRefs).toEqual([`${RUN}:m1:3`]);
    expect(plan.messages[2]!.content).toMatch(/^<<<DATA id=.* kind="memory" trust="verified"/);
  });

  it('fails with a typed error when the reserves leave no room or the mandatory items do not fit', () => {
    expect(() => planRequest(input(2, 600))).toThrow(
      expect.objectContaining({ code: 'context.budget_invalid' }),
    );
    const huge = input(0, 2_000);
    expect(() =>
      planRequest({
        ...huge,
        newMessages: [{ role: 'user', content: 'word '.repeat(3_000), trust: 'untrusted' }],
      }),
    ).toThrow(expect.objectContaining({ code: 'context.budget_exceeded' }));
  });
});

describe('route tokenizers', () => {
  it('picks a bundled encoding for known models and the conservative estimate otherwise', () => {
    expect(defaultTokenizer('openai', 'gpt-4.1-mini')).toBe('o200k_base');
    expect(defaultTokenizer('openai', 'gpt-4-turbo')).toBe('cl100k_base');
    expect(defaultTokenizer('scripted', 'anything')).toBe('o200k_base');
    expect(defaultTokenizer('anthropic', 'claude-sonnet-4-5')).toBe('estimate');
    expect(defaultTokenizer('openai', 'llama-3-70b')).toBe('estimate');
  });

  it('estimates at least a quarter more than o200k_base and at least a token per 3 bytes', () => {
    for (const text of [
      'The refund was approved.',
      '退款已经批准，订单号 ORD-1001。',
      '{"a":[1,2,3]}',
      'x'.repeat(999),
    ]) {
      const n = estimateTokens(text);
      expect(n).toBeGreaterThanOrEqual(Math.ceil(countTokens(text) * 1.25));
      expect(n).toBeGreaterThanOrEqual(Math.ceil(Buffer.byteLength(text) / 3));
      expect(countWith('estimate', text)).toBe(n);
    }
    expect(estimateTokens('')).toBe(0);
  });
});
