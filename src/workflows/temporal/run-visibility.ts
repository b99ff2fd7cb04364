import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { AgentProfileKey, AgentStatusKey, AgentWaitingReasonKey } from '../../contract/visibility.js';
import type { RunState } from '../runner/run-state.js';

export { AgentProfileKey, AgentStatusKey, AgentWaitingReasonKey };

/**
 * Publishes what a person sees in the Temporal UI: search attributes (only when status or waiting
 * reason change, so steps add no history events) and the current details (free, not in history).
 */
export class RunVisibility {
  private lastKey = '';

  constructor(
    private readonly options: {
      /**
       * Publish `queued` too. It lasts only the first workflow task, so runs on the baseline patch
       * (run-patches.ts) skip it; histories recorded before it have its upsert and must replay unchanged
       * (dropping a recorded upsert is a non-determinism; see test/replay).
       */
      readonly publishQueued: boolean;
    },
  ) {}

  publish(state: RunState): void {
    if (state.status === 'queued' && !this.options.publishQueued) return;
    const key = `${state.status}|${state.waitingReason ?? ''}`;
    if (key !== this.lastKey) {
      this.lastKey = key;
      upsertSearchAttributes([
        { key: AgentStatusKey, value: state.status },
        { key: AgentWaitingReasonKey, value: state.waitingReason ?? 'none' },
      ]);
    }
    setCurrentDetails(renderDetails(state));
  }
}

/** Markdown shown as the workflow's current details in the UI. */
export function renderDetails(state: RunState): string {
  const lines = [
    `**${state.status}**${state.waitingReason ? ` — waiting: \`${state.waitingReason}\`` : ''}`,
    `profile \`${state.versions.profile}\` · policy \`${state.versions.policy}\` · node \`${state.currentNode ?? '-'}\``,
    `steps ${state.budget.steps} · model calls ${state.budget.modelCalls} · tool calls ${state.budget.toolCalls} · cost $${state.budget.costUsd.toFixed(4)}`,
  ];
  const p = state.pendingAction;
  if (p) {
    lines.push(
      `pending action \`${p.actionId}\` (${p.kind}${p.tool ? ` ${p.tool}@${p.version}` : ''}${p.invocationSeq !== undefined ? ` #${p.invocationSeq}` : ''})`,
    );
    if (state.humanRequest) lines.push(`> ${state.humanRequest.requestSummary}`);
    if (p.expiresAt) lines.push(`expires ${p.expiresAt}`);
  }
  if (state.terminalReason)
    lines.push(`reason \`${state.terminalReason.code}\`: ${state.terminalReason.message}`);
  return lines.join('\n\n');
}
