import { describeInputIssues, AgentRunInputSchema, type AgentRunInput } from '../contract/run-input.js';
import { budgetLimitsObject } from '../workflows/index.js';
import { allowedPolicies } from '../workflows/index.js';
import type { AgentRunComposition } from '../workflows/index.js';
import { HarnessError } from '../contract/errors.js';
import { versionedName } from '../contract/versioned-name.js';

/** Invalid start request (`run.invalid_input`), naming the offending field in `details.field`. */
function inputError(message: string, details: Record<string, unknown>): HarnessError {
  return new HarnessError('run.invalid_input', message, details);
}

/** What `harness start` was given, before the composition's digests are known. */
export interface StartRequest {
  readonly profile: { name: string; version: string };
  readonly policy?: { name: string; version: string };
  readonly task: Record<string, unknown>;
  readonly modelRoute?: string;
  readonly budget?: Record<string, unknown>;
  readonly approvalTimeoutSeconds?: number;
  readonly threadId?: string;
  readonly tenantId?: string;
  readonly userId?: string;
}

/** `name` or `name@vN`; `--version` wins over the suffix; default: the highest registered version. */
export function resolveProfile(
  composition: AgentRunComposition,
  spec: string,
  version?: string,
): { name: string; version: string } {
  const [name = '', suffix] = spec.split('@');
  const known = composition.profiles.list();
  const v = version ?? suffix ?? highestVersion(known.filter((p) => p.name === name).map((p) => p.version));
  if (!v || !composition.profiles.find(name, v)) {
    throw inputError(
      `profile: ${versionedName(name, v ?? '?')} is not registered (known: ${known.map((p) => versionedName(p.name, p.version)).join(', ')})`,
      { field: 'profile' },
    );
  }
  return { name, version: v };
}

/**
 * `name@vN`, checked against the profile's policy binding; default: the profile's default policy.
 * @throws HarnessError `run.invalid_input` (the CLI exits 2) for a policy that is not registered; `run.policy_not_allowed`
 *   (exit 2) for one the profile does not list (the workflow would refuse it the same way).
 */
export function resolvePolicy(
  composition: AgentRunComposition,
  spec: string | undefined,
  profile: { name: string; version: string },
): { name: string; version: string } {
  const found = composition.profiles.find(profile.name, profile.version);
  if (!found)
    throw inputError(`profile: ${versionedName(profile.name, profile.version)} is not registered`, {
      field: 'profile',
    });
  const allowed = allowedPolicies(found);
  const value = spec ?? found.policies.default;
  const [name = '', version] = value.split('@');
  if (!version || !composition.policies.find(name, version)) {
    const known = composition.policies.list();
    throw inputError(
      `policy: ${value} is not registered; use name@vN (known: ${known.map((p) => versionedName(p.name, p.version)).join(', ')})`,
      { field: 'policy' },
    );
  }
  if (!allowed.includes(versionedName(name, version)))
    throw new HarnessError(
      'run.policy_not_allowed',
      `policy: ${versionedName(profile.name, profile.version)} may not run under ${value} (allowed: ${allowed.join(', ')})`,
      { field: 'policy', allowed },
    );
  return { name, version };
}

function highestVersion(versions: string[]): string | undefined {
  return versions.sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)))[0];
}

/**
 * The AgentRunInput (schemaVersion 1). It pins no tool or config digest and names a model route only
 * when asked: the run pins those from the worker that serves its start.
 * @throws HarnessError `run.invalid_input` (the CLI exits 2) naming the first invalid field.
 */
export function buildRunInput(req: StartRequest): AgentRunInput {
  if (req.budget) {
    const b = budgetLimitsObject().partial().safeParse(req.budget);
    if (!b.success) {
      const issues = b.error.issues
        .slice(0, 5)
        .map((i) => `budget${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`);
      throw inputError(`invalid run input: ${issues.join('; ')}`, { field: 'budget' });
    }
  }
  const raw = {
    schemaVersion: 1 as const,
    profile: req.profile,
    ...(req.policy ? { policy: req.policy } : {}),
    ...(req.modelRoute !== undefined ? { modelRoute: req.modelRoute } : {}),
    task: req.task,
    ...(req.budget ? { budget: req.budget } : {}),
    ...(req.approvalTimeoutSeconds !== undefined
      ? { approvalTimeoutSeconds: req.approvalTimeoutSeconds }
      : {}),
    ...(req.threadId ? { threadId: req.threadId } : {}),
    ...(req.tenantId ? { tenantId: req.tenantId } : {}),
    ...(req.userId ? { userId: req.userId } : {}),
  };
  const parsed = AgentRunInputSchema.safeParse(raw);
  if (!parsed.success)
    throw inputError(`invalid run input: ${describeInputIssues(parsed.error)}`, {
      field: parsed.error.issues[0]?.path.join('.'),
    });
  return parsed.data;
}
