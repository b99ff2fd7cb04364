/**
 * The output schema of a model call of purpose `route`, and the reading of its answer. The schema's
 * enum is generated from the choices it is given only, so a well-behaved model cannot name another
 * domain; the answer is still read by hand, since a model may ignore its schema.
 */

/** Longest route id read from a proposal; longer answers are invalid. */
export const MAX_PROPOSED_ROUTE = 100;

/**
 * `{ type: 'object', properties: { route: { type: 'string', enum: choices } }, required: ['route'],
 * additionalProperties: false }`, with the choices sorted and deduplicated. Never throws; with no
 * choice the enum is empty and no answer fits.
 */
export function routeOutputSchema(choices: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      route: {
        type: 'string',
        description: 'The capability domain that handles the request.',
        enum: [...new Set(choices)].sort(),
      },
    },
    required: ['route'],
    additionalProperties: false,
  };
}

/** A proposal read: the route it names, or why it does not fit the shape of the schema. */
export type ReadProposal = { readonly ok: true; readonly route: string } | { readonly ok: false };

/**
 * Read a model's answer against the shape of {@link routeOutputSchema}: a plain object with exactly the
 * key `route`, a non-empty string of at most {@link MAX_PROPOSED_ROUTE} characters. Whether the route
 * is one of the choices is the caller's question (it tells unknown from excluded). Never throws, on any
 * value: getters are not run (only own data properties of a plain object are read) and a throwing
 * proxy reads as invalid.
 */
export function readRouteProposal(answer: unknown): ReadProposal {
  try {
    return readPlain(answer);
  } catch {
    return { ok: false }; // a proxy whose traps throw: not an answer of the schema
  }
}

function readPlain(answer: unknown): ReadProposal {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return { ok: false };
  const proto: unknown = Object.getPrototypeOf(answer);
  if (proto !== Object.prototype && proto !== null) return { ok: false };
  const keys = Object.keys(answer);
  if (keys.length !== 1 || keys[0] !== 'route') return { ok: false };
  const desc = Object.getOwnPropertyDescriptor(answer, 'route');
  const route: unknown = desc && 'value' in desc ? desc.value : undefined;
  if (typeof route !== 'string' || route.length === 0 || route.length > MAX_PROPOSED_ROUTE)
    return { ok: false };
  return { ok: true, route };
}
