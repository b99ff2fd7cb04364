import type { ToolDefinition } from '../../contract/tool.js';
import { canonicalJson } from '../../registry/sandbox.js';
import { versionedName } from '../../contract/versioned-name.js';
import { maskSecrets } from '../guardrails/data-taint.js';

/** The tool call a person is asked about, as a profile's {@link ActionDescriber} sees it. */
export interface DescribedAction {
  readonly tool: string;
  readonly version: string;
  /** The validated arguments the approval binds (their digest is what a decision names). */
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * A profile's phrasing of a tool call for the person who confirms or approves it, e.g.
 * `({ args }) => \`Refund ${args.amount} ${args.currency} on order ${args.orderId}\``. It runs in the
 * workflow sandbox at the moment the run asks: it must be pure and deterministic (no I/O, no clock,
 * no randomness). Return undefined (or a blank string) for the default text.
 */
export type ActionDescriber = (action: DescribedAction) => string | undefined;

/** Most characters of a request summary (longer text is cut). */
export const MAX_ACTION_SUMMARY_LENGTH = 500;

/** Characters of the canonical arguments the default summary shows. */
const DEFAULT_ARGS_LENGTH = 300;

/** The default summary: `tool@version {canonical arguments}`, secrets masked, arguments cut to 300. */
function defaultSummary(def: ToolDefinition, args: Readonly<Record<string, unknown>>): string {
  return `${versionedName(def.name, def.version)} ${maskSecrets(canonicalJson(args)).slice(0, DEFAULT_ARGS_LENGTH)}`;
}

/**
 * What a person deciding on a call of `def` reads (`HumanRequest.requestSummary`): the profile's
 * phrasing when it has a describer that answers a non-blank string, else the default
 * `tool@version {arguments}`. The phrasing is secret-masked like the default (a describer that quotes
 * a token shows it masked) and cut to {@link MAX_ACTION_SUMMARY_LENGTH} characters. The approval still
 * binds the tool, version and argument digest, whatever the text says; signed runs also show the
 * arguments themselves in the `state` view. Never throws: a describer that throws or answers anything
 * but a string gets the default text.
 */
export function actionSummary(
  describe: ActionDescriber | undefined,
  def: ToolDefinition,
  args: Readonly<Record<string, unknown>>,
): string {
  if (describe === undefined) return defaultSummary(def, args);
  let text: unknown;
  try {
    text = describe({ tool: def.name, version: def.version, args });
  } catch {
    return defaultSummary(def, args);
  }
  if (typeof text !== 'string' || text.trim() === '') return defaultSummary(def, args);
  // Cut before masking too (the scan is linear, but a describer's text has no other bound), with room
  // for a secret that starts inside the kept part to be found whole and masked.
  return maskSecrets(text.trim().slice(0, 4 * MAX_ACTION_SUMMARY_LENGTH)).slice(0, MAX_ACTION_SUMMARY_LENGTH);
}
