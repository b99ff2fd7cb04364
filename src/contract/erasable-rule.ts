import { z } from 'zod';
import { HarnessError } from './errors.js';

/**
 * The erasable fields an app declares (docs/evidence-chain.md, "Which values are erasable"), added to
 * the harness's default rule (`ERASABLE_KEY`, erasable-values.ts), never replacing it:
 * - `keys`: more key names (exact, case-insensitive) whose values are erasable at any depth of every
 *   event's data, e.g. `zip`, `paymentMethodId`;
 * - `paths`: per event type (`tool.requested`, or `*` for every type), JSON pointers inside that
 *   event's data (`/arguments/card/last4`); a token `*` matches any key or array index.
 * Keys the verifier and the chain need (the tenant, principals, ids, digests, statuses) cannot be
 * declared. The store applies the rule when it writes an event, so a commitment says what it is by
 * itself: the verifier never needs the rule, and a changed rule does not touch runs stored before.
 */
export const ErasableFieldsSchema = z.strictObject({
  keys: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'a key name: letters, digits, _ or -'))
    .max(100)
    .optional(),
  paths: z
    .record(
      z.string().regex(/^(\*|[a-z][a-z0-9_]*(\.[a-z0-9_]+)*)$/, 'an event type such as tool.requested, or *'),
      z
        .array(z.string().regex(/^(\/[^/]{1,100}){1,10}$/, 'a JSON pointer inside the event data, e.g. /zip'))
        .min(1)
        .max(100),
    )
    .optional(),
});
export type ErasableFields = z.infer<typeof ErasableFieldsSchema>;

/**
 * Key names an app may not make erasable: what the chain's genesis, the verifier and the run record
 * read from event data (tenant, principals and decisions, ids, digests, statuses, versions).
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(
  [
    'tenantId',
    'actor',
    'principal',
    'decision',
    'token',
    'actionId',
    'runId',
    'workflowId',
    'eventId',
    'seq',
    'type',
    'tool',
    'version',
    'status',
    'fromStatus',
    'toStatus',
    'argsDigest',
    'registryDigest',
    'policyVersion',
    'externalId',
    'artifactIds',
    'versions',
    'events',
    'head',
  ].map((k) => k.toLowerCase()),
);

/** A validated rule, ready for {@link isDeclaredKey} and {@link isDeclaredPath}. */
export interface ErasableRule {
  /** Lowercased declared keys. */
  readonly keys: ReadonlySet<string>;
  /** Declared pointers per event type (`*`: every type), as tokens (unescaped). */
  readonly paths: ReadonlyMap<string, readonly (readonly string[])[]>;
  /** The declaration as given (canonical order), for the run config digest. */
  readonly declared: ErasableFields;
}

const unescape = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * Validate an app's declaration.
 * @throws HarnessError `erasable.invalid` naming the first problem: outside the schema, or a reserved
 *   key (declared as a key, or as a path's last token). Nothing is registered then.
 */
export function erasableRule(value: unknown): ErasableRule {
  const parsed = ErasableFieldsSchema.safeParse(value);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new HarnessError(
      'erasable.invalid',
      `erasable fields: ${i?.path.map(String).join('.') || '(root)'}: ${i?.message}`,
      { path: i?.path.map(String).join('.') ?? '' },
    );
  }
  const keys = [...new Set((parsed.data.keys ?? []).map((k) => k.toLowerCase()))].sort();
  const sorted = Object.entries(parsed.data.paths ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([type, pointers]) => [type, [...new Set(pointers)].sort()] as const);
  const paths = new Map(
    sorted.map(([type, ps]) => [type, ps.map((p) => p.split('/').slice(1).map(unescape))]),
  );
  const reserved = [
    ...keys.filter((k) => RESERVED_KEYS.has(k)),
    ...[...paths.values()]
      .flat()
      .map((t) => (t.at(-1) ?? '').toLowerCase())
      .filter((k) => RESERVED_KEYS.has(k)),
  ][0];
  if (reserved !== undefined)
    throw new HarnessError(
      'erasable.invalid',
      `erasable fields: ${reserved} cannot be erasable: the chain or the verifier needs it`,
      { key: reserved },
    );
  const declared: ErasableFields = {
    ...(keys.length > 0 ? { keys } : {}),
    ...(sorted.length > 0 ? { paths: Object.fromEntries(sorted) } : {}),
  };
  return { keys: new Set(keys), paths, declared };
}

/** Does the rule declare `key` (case-insensitive) erasable? (The default rule is checked apart.) */
export function isDeclaredKey(rule: ErasableRule | undefined, key: string): boolean {
  return rule?.keys.has(key.toLowerCase()) ?? false;
}

/**
 * Does the rule declare the value at `tokens` (inside the data) of an event of `type` erasable?
 * Bounded: at most 100 pointers of at most 10 tokens per type.
 */
export function isDeclaredPath(
  rule: ErasableRule | undefined,
  type: string,
  tokens: readonly string[],
): boolean {
  if (!rule || rule.paths.size === 0) return false;
  const match = (p: readonly string[]) =>
    p.length === tokens.length && p.every((t, i) => t === '*' || t === tokens[i]);
  return (rule.paths.get(type) ?? []).some(match) || (rule.paths.get('*') ?? []).some(match);
}
