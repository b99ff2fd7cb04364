import { createInterface } from 'node:readline/promises';
import { sha256Hex } from '../contract/sha256.js';
import { canonicalJson } from '../contract/canonical-json.js';
import type { RunView } from '../contract/run-view.js';
import { CliError, EXIT, refusedError } from './errors.js';
import type { Output } from './output.js';
import { versionedName } from '../contract/versioned-name.js';

/** What a decision verb is about to sign, as the run's `state` query shows it. */
export interface PendingReview {
  readonly actionId: string;
  readonly kind: string;
  readonly tool?: string;
  readonly version?: string;
  readonly argsDigest?: string;
  readonly invocationSeq?: number;
  /** The arguments of the call that waits (signed runs); absent when the wait binds no call. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly decisionType?: string;
  readonly summary?: string;
  readonly expiresAt?: string | null;
}

/** The pending action of `v` with its arguments, or undefined when the run waits for nothing. */
export function pendingReview(v: RunView): PendingReview | undefined {
  const p = v.pendingAction;
  if (!p) return undefined;
  const h = v.humanRequest;
  return {
    actionId: p.actionId,
    kind: p.kind,
    ...(p.tool !== undefined ? { tool: p.tool } : {}),
    ...(p.version !== undefined ? { version: p.version } : {}),
    ...(p.argsDigest !== undefined ? { argsDigest: p.argsDigest } : {}),
    ...(p.invocationSeq !== undefined ? { invocationSeq: p.invocationSeq } : {}),
    ...(v.pendingArguments !== undefined ? { arguments: v.pendingArguments } : {}),
    ...(h ? { decisionType: h.decisionType, summary: h.requestSummary } : {}),
    expiresAt: p.expiresAt,
  };
}

/** The readable lines of a review: action, tool and version, argument digest, the arguments in full. */
export function describeReview(workflowId: string, verb: string, r: PendingReview): string[] {
  const lines = [`${verb} ${workflowId}: pending action ${r.actionId} (${r.kind})`];
  if (r.tool !== undefined) lines.push(`  tool:        ${versionedName(r.tool, r.version ?? '?')}`);
  if (r.invocationSeq !== undefined) lines.push(`  invocation:  #${r.invocationSeq}`);
  if (r.decisionType !== undefined) lines.push(`  request:     (${r.decisionType}) ${r.summary ?? ''}`);
  lines.push(`  args digest: ${r.argsDigest ?? '(none: the wait binds no arguments)'}`);
  if (r.expiresAt) lines.push(`  expires:     ${r.expiresAt}`);
  if (r.arguments !== undefined) {
    lines.push('  arguments:');
    for (const l of JSON.stringify(r.arguments, null, 2).split('\n')) lines.push(`    ${l}`);
  } else {
    lines.push('  arguments:   (not shown by the run)');
  }
  return lines;
}

/**
 * The check that what is shown is what is signed: when the run shows the arguments and binds a
 * digest, the digest must be that of the arguments (canonical JSON, SHA-256, as the run computes it).
 * @throws CliError `cli.refused` (exit 5) when they differ; nothing is signed.
 */
export function checkShownArguments(workflowId: string, r: PendingReview): void {
  if (r.arguments === undefined || r.argsDigest === undefined) return;
  const shown = `sha256:${sha256Hex(canonicalJson(r.arguments))}`;
  if (shown !== r.argsDigest)
    throw refusedError(
      `run ${workflowId}: the arguments shown hash to ${shown}, not the bound digest ${r.argsDigest}; nothing signed`,
      { workflowId, pendingActionId: r.actionId, shownDigest: shown, argsDigest: r.argsDigest },
    );
}

/** Asks the operator a yes/no question; `interactive` is false when there is no terminal to ask on. */
export interface Confirmer {
  readonly interactive: boolean;
  /** The answer line, as typed. */
  ask(question: string): Promise<string>;
}

/** The terminal: interactive when stdin and stderr are both TTYs; the question goes to stderr. */
export function terminalConfirmer(): Confirmer {
  return {
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    ask: async (question) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
  };
}

/**
 * Show the pending action (on stderr; with `--json` only before a prompt, the result carrying it as
 * `pending`) and require the operator's intent
 * before anything is signed: `given` (`--action`) naming exactly this action, or, without it, a `y`
 * typed at the terminal.
 * @throws CliError `cli.refused` (exit 5) when `given` names another action; `cli.action_required`
 *   (exit 2) without `--action` and without a terminal; `cli.declined` (exit 2) when the operator does
 *   not answer `y`. In every case nothing is signed or sent.
 */
export async function confirmPending(
  workflowId: string,
  verb: string,
  r: PendingReview,
  given: string | undefined,
  out: Output,
  confirmer: Confirmer = terminalConfirmer(),
): Promise<void> {
  const show = (): void => {
    for (const line of describeReview(workflowId, verb, r)) out.progress(line);
  };
  // `--json` keeps stderr for the error object, so the review is shown there only before a prompt.
  if (!out.json) show();
  checkShownArguments(workflowId, r);
  if (given !== undefined) {
    if (given !== r.actionId)
      throw refusedError(`run ${workflowId} waits on action ${r.actionId}, not ${given}; nothing sent`, {
        workflowId,
        pendingActionId: r.actionId,
      });
    return;
  }
  if (!confirmer.interactive)
    throw new CliError(
      'cli.action_required',
      `run ${workflowId} waits on action ${r.actionId}: pass --action ${r.actionId} to ${verb} it (no terminal to confirm on); nothing sent`,
      EXIT.usage,
      { workflowId, pendingActionId: r.actionId, option: '--action' },
    );
  if (out.json) show();
  const answer = (await confirmer.ask(`${verb} ${r.actionId} as shown above? [y/N] `)).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes')
    throw new CliError('cli.declined', `${verb} of ${r.actionId} not confirmed; nothing sent`, EXIT.usage, {
      workflowId,
      pendingActionId: r.actionId,
    });
}
