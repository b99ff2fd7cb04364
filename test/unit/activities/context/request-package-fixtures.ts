import type {
  renderRequest,
  RequestPackageInput,
  TranscriptGroup,
} from '../../../../src/activities/context/request-package.js';
import { countTokens } from '../../../../src/activities/context/tokenizer.js';
import type { ModelMessageInput } from '../../../../src/workflows/runner/ports.js';

/** The shared inputs of the request package tests (request-package.test.ts): a conversation of tool-call turns and its package input. */
export const RUN = 'run-ctx';
export const NOW = '2026-12-02T12:00:00.000Z';

/** Group k (k >= 1) answers with one tool call; its next group carries the result of that call. */
export function conversation(
  turns: number,
  resultChars = 2_400,
): { groups: TranscriptGroup[]; next: ModelMessageInput[] } {
  const first: ModelMessageInput[] = [
    { role: 'system', content: 'You are a careful agent.', trust: 'system' },
    { role: 'user', content: 'Reconcile the ledger.', trust: 'untrusted' },
  ];
  const result = (k: number): ModelMessageInput => ({
    role: 'tool',
    toolCallId: `c${k}`,
    content: `result ${k}: ${'ledger line '.repeat(resultChars / 12)}`,
    trust: 'untrusted',
  });
  const groups: TranscriptGroup[] = [];
  for (let k = 1; k <= turns; k++) {
    groups.push({
      seq: k,
      input: k === 1 ? first : [result(k - 1)],
      output: {
        text: `step ${k}`,
        toolCalls: [{ id: `c${k}`, name: 'ledger.read', version: 'v1', args: { page: k } }],
      },
    });
  }
  return { groups, next: turns === 0 ? first : [result(turns)] };
}

export function input(
  turns: number,
  window: number,
  extra: Partial<RequestPackageInput> = {},
): RequestPackageInput {
  const { groups, next } = conversation(turns);
  return {
    runId: RUN,
    callSeq: turns + 1,
    groups,
    newMessages: next,
    budget: { contextWindow: window, outputReserve: 500, requestOverhead: 100, tokenizer: 'o200k_base' },
    route: 'scripted@v1',
    now: NOW,
    policyVersion: 'context/v2',
    summaries: new Map(),
    ...extra,
  };
}

export const count = (t: string): number => countTokens(t);

/** Every tool message follows the assistant message that made its call. */
export function wellFormed(messages: ReturnType<typeof renderRequest>): boolean {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      open.clear();
      for (const c of m.toolCalls ?? []) open.add(c.id);
    }
    if (m.role === 'tool' && !open.delete(m.toolCallId)) return false;
  }
  return true;
}
