import type { CompletionContract } from '../completion/index.js';
import type { Observation } from '../domain/observation.js';
import { observationText } from './observations.js';
import type { ModelMessageInput } from './ports.js';
import type { Profile, ProfileResult } from './profile.js';
import type { RunContext } from './run-context.js';

export interface GoalProfileConfig {
  readonly name: string;
  readonly version: string;
  /** The system instructions (trusted, from the composition). */
  readonly instructions: string;
  /** Tools the model may be offered (`name` or `name@version`); the policy narrows further. */
  readonly tools: readonly string[];
  readonly completion: CompletionContract;
  /** Which task field holds the user's goal; default `message`. */
  readonly goalField?: string;
  /** Turn the model's final text into the run's output (default: the text itself). */
  readonly interpret?: (text: string) => unknown;
}

/** What the model reads of an observation: bounded, structured, never raw executor internals. */
export function observationForModel(o: Observation): string {
  return observationText({
    status: o.status,
    tool: `${o.toolName}@${o.toolVersion}`,
    seq: o.seq,
    output: o.output,
    artifactIds: o.artifactIds,
    errorCode: o.errorCode,
    errorMessage: o.errorMessage,
  });
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
 */
export function createGoalProfile(config: GoalProfileConfig): Profile {
  return {
    name: config.name,
    version: config.version,
    kind: 'goal',
    completion: config.completion,
    tools: config.tools,
    async run(ctx: RunContext): Promise<ProfileResult> {
      const goal = ctx.task[config.goalField ?? 'message'];
      // After a continue-as-new the pending messages come from the checkpoint; earlier turns are in
      // the evidence store and reach the model through the model activity.
      let messages: ModelMessageInput[] = (ctx.resume?.messages as ModelMessageInput[] | undefined) ?? [
        { role: 'system', content: config.instructions, trust: 'system' },
        {
          role: 'user',
          content: typeof goal === 'string' ? goal : JSON.stringify(goal ?? ''),
          trust: 'untrusted',
        },
      ];
      for (;;) {
        const decision = await ctx.model('decide', { messages, tools: ctx.visibleTools() });
        if (decision.toolCalls.length === 0) {
          return { output: config.interpret ? config.interpret(decision.text) : decision.text };
        }
        messages = [];
        for (const call of decision.toolCalls) {
          const observation = await ctx.tool(call.name, call.args, {
            version: call.version,
            proposalId: call.id,
          });
          messages.push(observationMessage(call.id, observation));
        }
        await ctx.checkpoint({ messages });
      }
    },
  };
}
