import { builtOnFirstUse } from '../../contract/built-on-first-use.js';
import { HarnessError } from '../../contract/errors.js';
import type { CompletionContract } from '../completion/index.js';
import type { ActionDescriber } from '../runner/action-summary.js';
import { blockedOutputMessage } from '../runner/goal-profile.js';
import type { ModelMessageInput } from '../runner/ports.js';
import {
  checkBlockedOutputChoice,
  profileHeader,
  ProfileConfigError,
  type BlockedOutputChoice,
  type Profile,
  type ProfilePolicies,
  type ProfileResult,
} from '../runner/profile.js';
import type { RunContext } from '../runner/run-context.js';
import { versionedName } from '../../contract/versioned-name.js';
import type { CapabilityCatalogue } from '../routing/capability-catalogue.js';
import type { FactDeriver } from '../routing/fact-deriver.js';
import { plannedPhase, type PlannerOptions } from './planned-run.js';
import { decideAndRecord } from './route-turn.js';
import { answerMessage, domainMessage } from './routed-messages.js';
import { runSession, type RoutedRun } from './routed-session.js';
import { initialRoutedState, type RoutedState } from './routed-state.js';
import { domainOf } from '../routing/capability-catalogue.js';

/** A routed profile's definition (issue 38): a goal profile whose tools are chosen by the router. */
export interface RoutedProfileConfig {
  readonly name: string;
  readonly version: string;
  /** The system instructions (a pinned prompt bundle's replace them, as for goal profiles). */
  readonly instructions: string;
  /** Every tool of the catalogue (`name` or `name@version`); the router and the policy narrow them. */
  readonly tools: readonly string[];
  readonly policies: ProfilePolicies;
  readonly completion: CompletionContract;
  /**
   * The pinned capability catalogue (`compileCatalogue`), built on first use. Its digest is in every
   * route decision; a changed catalogue is a new profile version.
   */
  readonly catalogue: () => CapabilityCatalogue;
  /** Verified facts from trusted tool results (see {@link FactDeriver}). */
  readonly facts: FactDeriver;
  /** Plan before acting (`Plan`/`PlanStep`, admitted by `admitPlan`); absent: route turn by turn. */
  readonly planner?: PlannerOptions;
  /** Most model turns in one domain session (a plan step, or a domain without a plan); default 8, 1..20. */
  readonly maxTurnsPerSession?: number;
  /** Which task field holds the request; default `message`. */
  readonly goalField?: string;
  readonly interpret?: (text: string) => unknown;
  readonly onBlockedOutput?: BlockedOutputChoice;
  readonly describeAction?: ActionDescriber;
}

/** Most phases one run goes through, across generations (route decisions, sessions, steps, plans). */
const MAX_PHASES = 200;

/**
 * A routed profile: **the model proposes, the harness decides**. Without a planner, each part of the
 * request is routed (rules over verified facts; a model call of purpose `route` only where they leave
 * a choice) into a capability domain, whose tools alone the model is offered; the route is decided
 * again whenever a fact the catalogue speaks of changes, within the catalogue's route-change bound.
 * With a planner, a model of purpose `plan` proposes a plan, `admitPlan` admits or rejects it before
 * any tool runs, and each step is routed into its domain (the plan proposes, the rules decide), run,
 * and judged by its success condition over verified facts; failed steps and fired replan conditions
 * replan, bounded, then the declared fallback. Every call still passes the policy. The run's output
 * is the model's final answer. Checkpoints between phases, so it continues as new cleanly.
 * @throws ProfileConfigError (`profile.invalid`) from `check()`/`run()` when the catalogue names a
 *   tool the profile does not list, or the bounds are out of range; the catalogue's own errors.
 */
export function createRoutedProfile(config: RoutedProfileConfig): Profile {
  const id = versionedName(config.name, config.version);
  checkBlockedOutputChoice(id, config.onBlockedOutput);
  const header = profileHeader(config, 'goal');
  const catalogue = builtOnFirstUse(() => checkedCatalogue(config, id));
  return {
    ...header,
    check: () => void catalogue(),
    run: (ctx) => runRouted(ctx, config, catalogue()),
  };
}

function checkedCatalogue(config: RoutedProfileConfig, id: string): CapabilityCatalogue {
  const cat = config.catalogue();
  const listed = (tool: string): boolean =>
    config.tools.includes(tool) || config.tools.includes(tool.slice(0, tool.lastIndexOf('@')));
  const unlisted = cat.domains.flatMap((d) => d.tools).filter((t) => !listed(t));
  if (unlisted.length)
    throw new ProfileConfigError(
      `profile ${id}: the catalogue uses tools the profile does not list: ${[...new Set(unlisted)].join(', ')}`,
    );
  const turns = config.maxTurnsPerSession ?? 8;
  if (!Number.isInteger(turns) || turns < 1 || turns > 20)
    throw new ProfileConfigError(`profile ${id}: maxTurnsPerSession must be an integer in 1..20`);
  return cat;
}

async function runRouted(
  ctx: RunContext,
  config: RoutedProfileConfig,
  catalogue: CapabilityCatalogue,
): Promise<ProfileResult> {
  const resumed = ctx.resume?.routed as RoutedState | undefined;
  if (resumed && resumed.catalogueDigest !== catalogue.digest)
    throw new HarnessError(
      'routing.catalogue_changed',
      `the run started on catalogue ${resumed.catalogueDigest}; this worker has ${catalogue.digest} (a changed catalogue needs a new profile version)`,
    );
  const state =
    resumed ?? initialRoutedState(config.planner !== undefined, firstMessages(ctx, config), catalogue.digest);
  const run: RoutedRun = {
    ctx,
    catalogue,
    deriveFacts: config.facts,
    maxTurns: config.maxTurnsPerSession ?? 8,
    state,
  };
  while (state.phase !== 'answer') {
    if (state.phases >= MAX_PHASES) {
      state.phase = 'answer';
      state.why = 'The run reached its bound of phases.';
      break;
    }
    state.phases += 1;
    if (config.planner) await plannedPhase(run, config.planner);
    else {
      const answered = await unplannedPhase(run);
      if (answered !== undefined) return result(ctx, config, answered);
    }
    await ctx.checkpoint({ routed: state });
  }
  return compose(ctx, config, [...state.pending, answerMessage(state.why ?? 'The work is done.')]);
}

/** The system instructions and the request (untrusted), as the goal profile starts. */
function firstMessages(ctx: RunContext, config: RoutedProfileConfig): ModelMessageInput[] {
  const goal = ctx.task[config.goalField ?? 'message'];
  return [
    { role: 'system', content: ctx.instructions ?? config.instructions, trust: 'system' },
    {
      role: 'user',
      content: typeof goal === 'string' ? goal : JSON.stringify(goal ?? ''),
      trust: 'untrusted',
    },
  ];
}

/** Route (phase `route`) or work in the domain (phase `session`); the final text when the model answered. */
async function unplannedPhase(run: RoutedRun): Promise<string | undefined> {
  const { ctx, catalogue, state } = run;
  if (state.phase === 'route') {
    const before = state.current;
    const decision = await decideAndRecord(ctx, catalogue, state);
    if (decision.route !== before) state.pending.push(domainMessage(domainOf(catalogue, decision.route)!));
    state.phase = 'session';
    return undefined;
  }
  const end = await runSession(run, true);
  if (end.how === 'answered') return end.text;
  if (end.how === 'turn_limit') {
    state.phase = 'answer';
    state.why = 'The conversation reached its bound of turns.';
  } else state.phase = 'route';
  return undefined;
}

/** Ask for the final answer (no tools offered) and interpret it. */
async function compose(
  ctx: RunContext,
  config: RoutedProfileConfig,
  messages: ModelMessageInput[],
): Promise<ProfileResult> {
  const decision = await ctx.model('decide', { messages, invalidToolCalls: 'report' });
  return result(ctx, config, decision.text);
}

function result(ctx: RunContext, config: RoutedProfileConfig, text: string): ProfileResult {
  return {
    output: config.interpret ? config.interpret(text) : text,
    recompose: (feedback) => compose(ctx, config, [blockedOutputMessage(feedback)]),
  };
}
