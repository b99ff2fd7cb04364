import { z } from 'zod';

/**
 * The schema a graph declares for its typed state (a zod object). Every state patch a node returns is
 * checked against it: each key must be a key of the schema, each value must satisfy that key's schema.
 */
export type GraphStateSchema<S> = z.ZodObject & z.ZodType<S>;

/** One reason a state patch was refused: where (`path`, dotted) and zod's code and message. */
export interface StatePatchIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/** At most this many issues are reported for one patch (events and terminal reasons stay bounded). */
export const MAX_PATCH_ISSUES = 10;

/** A checker of state patches: the issues of a bad patch, or undefined for a good one. */
export type StatePatchCheck = (patch: unknown) => readonly StatePatchIssue[] | undefined;

/**
 * Build the patch check of a state schema: the schema's fields, each optional, no other key. The
 * issues name paths and zod's messages only, never the refused values (they may be personal data).
 * Never throws: `validateGraph` has refused a schema that is not a zod object before.
 */
export function statePatchCheck(schema: z.ZodObject): StatePatchCheck {
  const patchSchema = schema.partial().strict();
  return (patch) => {
    const parsed = patchSchema.safeParse(patch);
    if (parsed.success) return undefined;
    return parsed.error.issues.slice(0, MAX_PATCH_ISSUES).map((i) => ({
      path: i.path.map(String).join('.'),
      code: i.code,
      message: i.message.slice(0, 200),
    }));
  };
}

/** True when `schema` is a zod object schema (the only kind a graph may declare for its state). */
export function isStateSchema(schema: unknown): schema is z.ZodObject {
  return schema instanceof z.ZodObject;
}
