import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { BundleTargetSchema, MAX_INSTRUCTIONS_CHARS } from '../../contract/bundles.js';
import { AuthorizationRulesSchema } from '../../workflows/index.js';
import { RulesPolicyConfigSchema } from '../../workflows/index.js';
import { BundleError } from './bundle-error.js';

const NameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,79}$/, 'expected a lowercase bundle name (letters, digits, . _ -)');
const VersionSchema = z.string().regex(/^v[1-9][0-9]{0,5}$/, 'expected v1, v2, ...');

const Common = {
  schemaVersion: z.literal(1),
  name: NameSchema,
  version: VersionSchema,
  description: z.string().max(500).optional(),
};

/** A prompt bundle: the system instructions of one profile (`profile: name@version`). */
export const PromptBundleSchema = z.strictObject({
  ...Common,
  kind: z.literal('prompt'),
  profile: BundleTargetSchema,
  instructions: z.string().trim().min(1).max(MAX_INSTRUCTIONS_CHARS),
});

/**
 * Rules-policy data (docs/policies.md) without name and version (the policy it fills gives them):
 * `rules`, `default`, `customReasonCodes`, and optionally `authorization` (docs/authorization.md).
 */
export const PolicyDataSchema = z.record(z.string(), z.unknown());

/** A policy bundle: the rules data of one rules policy (`policy: name@version`). */
export const PolicyBundleSchema = z.strictObject({
  ...Common,
  kind: z.literal('policy'),
  policy: BundleTargetSchema,
  data: PolicyDataSchema,
});

export const BundleFileSchema = z.discriminatedUnion('kind', [PromptBundleSchema, PolicyBundleSchema]);
export type PromptBundle = z.output<typeof PromptBundleSchema>;
export type PolicyBundle = z.output<typeof PolicyBundleSchema>;
export type BundleFile = z.output<typeof BundleFileSchema>;

/** `a.b[2].c` from a zod path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path)
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  return out === '' ? '(root)' : out;
}

function invalid(source: string, message: string, path?: string): BundleError {
  return new BundleError('bundle.invalid', `bundle ${source}: ${message}`, {
    source,
    ...(path !== undefined ? { path } : {}),
  });
}

function firstIssue(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
): { path: string; message: string } {
  const issue = error.issues[0];
  const inner = issue?.code === 'invalid_union' ? undefined : issue;
  return {
    path: formatIssuePath([...prefix, ...(inner?.path ?? issue?.path ?? [])]),
    message: inner?.message ?? issue?.message ?? 'invalid',
  };
}

/**
 * The rules data of a policy bundle, checked exactly as `RulesPolicy` will check it in the workflow
 * (with the target's name and version), plus its authorization rules.
 * @throws BundleError `bundle.invalid` naming the first bad field (`data.rules[1].decision: ...`).
 */
export function checkPolicyData(bundle: PolicyBundle, source: string): void {
  const [name = '', version = ''] = bundle.policy.split('@');
  // The policy the bundle fills names it: a name or version inside the data would be overridden
  // silently, so it is refused.
  for (const key of ['name', 'version'])
    if (key in bundle.data)
      throw invalid(
        source,
        `data.${key}: a policy bundle takes its name and version from \`policy\` (${bundle.policy}); remove it`,
        `data.${key}`,
      );
  const { authorization, ...rules } = bundle.data;
  const parsed = RulesPolicyConfigSchema.safeParse({ ...rules, name, version });
  if (!parsed.success) {
    const { path, message } = firstIssue(parsed.error, ['data']);
    throw invalid(source, `${path}: ${message}`, path);
  }
  if (authorization !== undefined) {
    const auth = AuthorizationRulesSchema.safeParse(authorization);
    if (!auth.success) {
      const { path, message } = firstIssue(auth.error, ['data', 'authorization']);
      throw invalid(source, `${path}: ${message}`, path);
    }
  }
}

/**
 * Validates a parsed bundle file.
 * @throws BundleError `bundle.invalid` naming the source and the first bad field.
 */
export function parseBundle(value: unknown, source: string): BundleFile {
  const parsed = BundleFileSchema.safeParse(value);
  if (!parsed.success) {
    const { path, message } = firstIssue(parsed.error);
    throw invalid(source, `${path}: ${message}`, path);
  }
  if (parsed.data.kind === 'policy') checkPolicyData(parsed.data, source);
  return parsed.data;
}

/**
 * Reads a JSON or YAML file (by extension) into a value.
 * @throws BundleError `bundle.invalid` when it cannot be read or parsed.
 */
export function readDataFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw invalid(basename(path), `cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  try {
    return yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    const why = (err as Error).message.split('\n')[0]?.slice(0, 200) ?? 'parse error';
    throw invalid(basename(path), `not valid ${yaml ? 'YAML' : 'JSON'}: ${why}`);
  }
}
