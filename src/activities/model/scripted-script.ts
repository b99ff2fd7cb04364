import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ModelError } from './errors.js';
import { ModelPurposeSchema } from './types.js';

const regexString = z.string().refine(
  (s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'not a valid regular expression' },
);

/** The longest a scripted answer may be held ({@link ScriptedResponseSchema} `delayMs`). */
export const MAX_SCRIPT_DELAY_MS = 60_000;

/** What a scripted call answers. Usage defaults to real token counts of the request and the answer. */
export const ScriptedResponseSchema = z
  .object({
    text: z.string().default(''),
    toolCalls: z
      .array(
        z
          .object({
            id: z.string().min(1).optional(),
            name: z.string().min(1),
            version: z.string().min(1),
            args: z.record(z.string(), z.unknown()).default({}),
            /**
             * The argument text exactly as sent, instead of `args` as JSON: lets a script send
             * arguments that are not valid JSON or not an object (docs/models.md, "Invalid tool calls").
             */
            rawArguments: z.string().optional(),
          })
          .strict(),
      )
      .default([]),
    usage: z
      .object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() })
      .strict()
      .optional(),
    stopReason: z.enum(['end_turn', 'tool_calls', 'max_tokens', 'stop_sequence', 'other']).optional(),
    /**
     * Hold the finished answer this many milliseconds before returning it, whatever the call's
     * cancellation: a provider that answers late and does not stop when asked to (timeout drills,
     * e.g. a fast model try over its timeout). The answer counts as given.
     */
    delayMs: z.number().int().min(0).max(MAX_SCRIPT_DELAY_MS).optional(),
  })
  .strict()
  .refine((r) => r.text !== '' || r.toolCalls.length > 0, { message: 'a response needs text or toolCalls' });
export type ScriptedResponse = z.infer<typeof ScriptedResponseSchema>;

/**
 * When an entry applies. All given conditions must hold. `step` is the number of assistant
 * messages already in the request (0 for the first call of a conversation), so matching is
 * stateless and gives the same answer on an activity retry. `contains`/`matches` test the last
 * `user` or `tool` message.
 */
export const ScriptMatchSchema = z
  .object({
    purpose: ModelPurposeSchema.optional(),
    step: z.number().int().nonnegative().optional(),
    contains: z.string().min(1).optional(),
    matches: regexString.optional(),
  })
  .strict();
export type ScriptMatch = z.infer<typeof ScriptMatchSchema>;

export const ScriptEntrySchema = z
  .object({ match: ScriptMatchSchema.default({}), response: ScriptedResponseSchema })
  .strict();
export type ScriptEntry = z.infer<typeof ScriptEntrySchema>;

/** A script: the first matching entry answers; `fallback` answers when none matches. */
export const ModelScriptSchema = z
  .object({
    entries: z.array(ScriptEntrySchema),
    fallback: ScriptedResponseSchema.optional(),
  })
  .strict();
export type ModelScript = z.infer<typeof ModelScriptSchema>;

/**
 * Validates a script (an object or JSON text). Throws `model.script_invalid` naming the first bad
 * field, e.g. `entries.1.match.step: Invalid input: expected number, received string`.
 */
export function parseModelScript(input: unknown, source = 'script'): ModelScript {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new ModelError('model.script_invalid', `${source} is not JSON: ${(err as Error).message}`, {
        details: { source },
      });
    }
  }
  const parsed = ModelScriptSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    throw new ModelError('model.script_invalid', `${source}: ${field}: ${issue?.message ?? 'invalid'}`, {
      details: { source, field },
    });
  }
  return parsed.data;
}

/** Reads and validates a script file; throws `model.script_invalid` for unreadable or invalid files. */
export function loadModelScriptFile(path: string): ModelScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ModelError(
      'model.script_invalid',
      `cannot read model script ${path}: ${(err as Error).message}`,
      { details: { path } },
    );
  }
  return parseModelScript(text, path);
}
