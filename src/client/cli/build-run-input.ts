import { describeInputIssues, AgentRunInputSchema, type AgentRunInput } from '../../contract/run-input.js';
import { BudgetLimitsSchema } from '../../core/runner/budget.js';
import type { HarnessApp } from '../../worker/app.js';
import { composeAgentRun, type AgentRunComposition } from '../../core/workflow/agent-run-definition.js';
import { usageError } from './errors.js';

/** What `harness start` was given, before the composition's digests are known. */
export interface StartRequest {
  readonly profile: { name: string; version: string };
  readonly policy: { name: string; version: string };
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
    throw usageError(
      `profile: ${name}@${v ?? '?'} is not registered (known: ${known.map((p) => `${p.name}@${p.version}`).join(', ')})`,
      { field: 'profile' },
    );
  }
  return { name, version: v };
}

/** `name@vN`; default: the app's default policy for the profile. */
export function resolvePolicy(
  app: Pick<HarnessApp, 'defaultPolicy'>,
  composition: AgentRunComposition,
  spec: string | undefined,
  profileName: string,
): { name: string; version: string } {
  const value = spec ?? app.defaultPolicy?.(profileName);
  if (value === undefined)
    throw usageError(`policy: the app names no default policy for ${profileName}; pass --policy name@vN`, {
      field: 'policy',
    });
  const [name = '', version] = value.split('@');
  const known = composition.policies.list();
  if (!version || !composition.policies.find(name, version)) {
    throw usageError(
      `policy: ${value} is not registered; use name@vN (known: ${known.map((p) => `${p.name}@${p.version}`).join(', ')})`,
      { field: 'policy' },
    );
  }
  return { name, version };
}

function highestVersion(versions: string[]): string | undefined {
  return versions.sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)))[0];
}

/**
 * The AgentRunInput (schemaVersion 1). It pins no tool or config digest and names a model route only
 * when asked: the run pins those from the worker that serves its start.
 * @throws CliError `cli.usage` (exit 2) naming the first invalid field.
 */
export function buildRunInput(req: StartRequest): AgentRunInput {
  if (req.budget) {
    const b = BudgetLimitsSchema.partial().safeParse(req.budget);
    if (!b.success) {
      const issues = b.error.issues
        .slice(0, 5)
        .map((i) => `budget${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`);
      throw usageError(`invalid run input: ${issues.join('; ')}`, { field: 'budget' });
    }
  }
  const raw = {
    schemaVersion: 1 as const,
    profile: req.profile,
    policy: req.policy,
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
    throw usageError(`invalid run input: ${describeInputIssues(parsed.error)}`, {
      field: parsed.error.issues[0]?.path.join('.'),
    });
  return parsed.data;
}

/** The looked-up profiles and policies of an app (no worker, no I/O). */
export function appComposition(app: HarnessApp): AgentRunComposition {
  return composeAgentRun(app.definition);
}
