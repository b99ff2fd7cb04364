import type { CompletionContract } from '../completion/index.js';
import type { Observation } from '../../contract/observation.js';
import { observationText } from '../../contract/observation-text.js';
import type { MemoryEntry } from '../../contract/memory.js';
import type { ModelMessageInput } from './ports.js';
import {
  checkBlockedOutputChoice,
  profileHeader,
  type BlockedOutputChoice,
  type BlockedOutputFeedback,
  type DeliveredAnswer,
  type Profile,
  type ProfilePolicies,
  type ProfileResult,
} from './profile.js';
import type { RunContext } from './run-context.js';
import type { ActionDescriber } from './action-summary.js';
import { versionedName } from '../../contract/versioned-name.js';

export interface GoalProfileConfig {
  readonly name: string;
  readonly version: string;
  /**
   * The system instructions (trusted, from the composition): the built-in prompt. A run that pinned a
   * prompt bundle for this profile (docs/control-plane.md) uses the bundle's instead.
   */
  readonly instructions: string;
  /** Tools the model may be offered (`name` or `name@version`); the policy narrows further. */
  readonly tools: readonly string[];
  /** The policies runs of this profile may use, and the default (see {@link ProfilePolicies}). */
  readonly policies: ProfilePolicies;
  readonly completion: CompletionContract;
  /** Which task field holds the user's goal; default `message`. */
  readonly goalField?: string;
  /** Turn the model's final text into the run's output (default: the text itself). */
  readonly interpret?: (text: string) => unknown;
  /** When the output guardrail blocks the final output (default fail); see {@link BlockedOutputChoice}. */
  readonly onBlockedOutput?: BlockedOutputChoice;
  /** How a person asked about one of its tool calls reads it; see {@link Profile.describeAction}. */
  readonly describeAction?: ActionDescriber;
  /** The answer of a run a budget ended after its writes took effect; see {@link Profile.deliveredAnswer}. */
  readonly deliveredAnswer?: DeliveredAnswer;
  /**
   * Recall the thread's memory at the start (`ctx.recall()`, one bookkeeping activity) and give it to
   * the model after the task, as `memory` items of trust `verified` (docs/context.md). Off by
   * default: turning it on for a profile with runs in flight changes their command sequence.
   */
  readonly recallMemory?: boolean;
}

/**
 * The messages that show recalled thread memory to the model: one `user` message per entry, trust
 * `verified`, kind `memory` (source `memory://<entryId>`, its expiry), its value as data. Pure.
 */
export function memoryMessages(entries: readonly MemoryEntry[]): ModelMessageInput[] {
  return entries.map((e) => ({
    role: 'user',
    trust: 'verified',
    content: `Remembered fact ${e.name} = ${JSON.stringify(e.value)} (verified by run ${e.provenance.runId} from ${e.provenance.evidenceProvenance} evidence, ${e.createdAt})`,
    memory: {
      sourceRef: `memory://${e.entryId}`,
      ...(e.expiresAt !== null ? { expiresAt: e.expiresAt } : {}),
    },
  }));
}

/**
 * The message that tells the model its answer was blocked: the reason codes and rule ids, never the
 * blocked text. Trusted (it comes from the harness), so it is not fenced as data.
 */
export function blockedOutputMessage(feedback: BlockedOutputFeedback): ModelMessageInput {
  const rules = [...new Set(feedback.findings.map((f) => `${f.ruleId} at ${f.path || '/'}`))];
  return {
    role: 'user',
    trust: 'system',
    content:
      `Your previous answer was not sent: the output guardrail blocked it ` +
      `(${feedback.reasonCodes.join(', ')}; ${rules.join('; ')}). ` +
      'Answer again. State only what the tool results show: claim no action that was not observed and verified, ' +
      'no amount or date that was not approved, and no secrets or card numbers.',
  };
}

/** What the model reads of an observation: bounded, structured, never raw executor internals. */
export function observationForModel(o: Observation): string {
  return observationText({
    status: o.status,
    tool: versionedName(o.toolName, o.toolVersion),
    seq: o.seq,
    output: o.output,
    artifactIds: o.artifactIds,
    errorCode: o.errorCode,
    errorMessage: o.errorMessage,
  });
}

/**
 * What the model reads about its tool calls that were not proposals (`RunContext.invalidToolCall`'s
 * observations): a harness notice (trusted, it names nothing the model wrote), then each observation
 * as a fenced data block (it holds the model's own tool name). Plain `user` messages, not `tool`
 * messages: the calls are not in the model's stored answer, so there is no call for a tool message
 * to answer (a provider refuses a tool message without its call).
 */
export function invalidCallMessages(observations: readonly Observation[]): ModelMessageInput[] {
  return [
    {
      role: 'user',
      trust: 'system',
      content:
        `${observations.length} of your tool calls could not be run: the name was not offered or the ` +
        'arguments were not one JSON object. Nothing was run for them; the errors follow as data. ' +
        'Call only the tools offered, with JSON object arguments that match their parameters.',
    },
    ...observations.map((o): ModelMessageInput => ({
      role: 'user',
      trust: 'untrusted',
      content: observationForModel(o),
    })),
  ];
}

/** The conversation message of an observation: a reference when its result is in the evidence store. */
export function observationMessage(toolCallId: string, o: Observation): ModelMessageInput {
  return o.resultRef
    ? { role: 'tool', toolCallId, content: '', trust: 'untrusted', resultOf: o.seq }
    : { role: 'tool', toolCallId, content: observationForModel(o), trust: 'untrusted' };
}

/**
 * The built-in goal profile: model -> tool calls -> observations -> ... -> final output, interpreted by
 * the profile, then gated by its CompletionContract. Tool outputs are untrusted data for the model.
 * When the output guardrail blocks the answer and the profile retries, the model gets
 * {@link blockedOutputMessage} in the same conversation and answers again (it may call tools first).
 * @throws ProfileConfigError (`profile.invalid`) for an unusable `onBlockedOutput`.
 */
export function createGoalProfile(config: GoalProfileConfig): Profile {
  checkBlockedOutputChoice(versionedName(config.name, config.version), config.onBlockedOutput);
  return {
    ...profileHeader(config, 'goal'),
    run(ctx: RunContext): Promise<ProfileResult> {
      const goal = ctx.task[config.goalField ?? 'message'];
      // After a continue-as-new the pending messages come from the checkpoint; earlier turns are in
      // the evidence store and reach the model through the model activity.
      const resumed = ctx.resume?.messages as ModelMessageInput[] | undefined;
      if (resumed) return converse(ctx, resumed);
      const messages: ModelMessageInput[] = [
        { role: 'system', content: ctx.instructions ?? config.instructions, trust: 'system' },
        {
          role: 'user',
          content: typeof goal === 'string' ? goal : JSON.stringify(goal ?? ''),
          trust: 'untrusted',
        },
      ];
      if (!config.recallMemory) return converse(ctx, messages);
      return ctx.recall().then((entries) => converse(ctx, [...messages, ...memoryMessages(entries)]));
    },
  };

  /**
   * The model/tool loop from `first`; a blocked answer continues the same conversation. Tool calls the
   * model sent that are not proposals (a name not offered, arguments not a JSON object) are answered
   * with {@link invalidCallMessages} after the results of its valid calls, and the model asked again.
   */
  async function converse(ctx: RunContext, first: ModelMessageInput[]): Promise<ProfileResult> {
    let messages = first;
    for (;;) {
      const decision = await ctx.model('decide', {
        messages,
        tools: ctx.visibleTools(),
        invalidToolCalls: 'report',
      });
      const invalid = decision.invalidToolCalls ?? [];
      if (decision.toolCalls.length === 0 && invalid.length === 0) {
        return {
          output: config.interpret ? config.interpret(decision.text) : decision.text,
          recompose: (feedback) => converse(ctx, [blockedOutputMessage(feedback)]),
        };
      }
      messages = [];
      for (const call of decision.toolCalls) {
        const observation = await ctx.tool(call.name, call.args, {
          version: call.version,
          proposalId: call.id,
        });
        messages.push(observationMessage(call.id, observation));
      }
      if (invalid.length > 0)
        messages.push(...invalidCallMessages(invalid.map((c) => ctx.invalidToolCall(c))));
      await ctx.checkpoint({ messages });
    }
  }
}
