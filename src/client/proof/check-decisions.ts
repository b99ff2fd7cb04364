import type { PrincipalRegistry } from '../../contract/principals.js';
import { decisionPayloadDigest } from '../../contract/token-claims.js';
import { checkDecisionToken, PrincipalDirectory, type TokenDecision } from '../../workflows/index.js';
import { jsonSha256 } from './check-artifacts.js';
import type { HistoryDecision } from './history-facts.js';
import { dataOf, fail, pass, type ProofCheck, type ProofInput } from './proof-check.js';

const DECIDED: Readonly<Record<string, TokenDecision>> = {
  approved: 'approve',
  rejected: 'reject',
  confirmed: 'confirm',
};

/**
 * Every verified human decision the events record is proven by a signed token in the history
 * (docs/authorization.md), checked again here against the registry the run recorded:
 * - `decisions.unavailable` / `decisions.unreadable`: no history, or encoded payloads;
 * - `decisions.registry_mismatch`: a registry in the history does not hash to the digest it was
 *   recorded under, or a decision names a registry the run never loaded (the registry was swapped);
 * - `decisions.registry_untrusted`: the auditor's registry (`--principals`) is not the run's;
 * - `decisions.no_token`: a decision event no signed decision in the history backs;
 * - `decisions.token_unbound`: the token is for another workflow, run, action, arguments or
 *   payload (an old token replayed), or names another actor;
 * - `decisions.signature_invalid`: the signature, key or principal does not verify;
 * - `decisions.ok`.
 */
export function checkDecisions(input: ProofInput): ProofCheck {
  const decided = dataOf(input, 'human.decided').filter((d) => d.verified === true);
  const h = input.history;
  if (!h) return fail('decisions', 'decisions.unavailable', 'no Temporal history holds the tokens');
  if (h.unreadable > 0) return fail('decisions', 'decisions.unreadable', 'payloads are encoded (a codec)');
  for (const [digest, registry] of h.registries)
    if (jsonSha256(registry) !== digest)
      return fail(
        'decisions',
        'decisions.registry_mismatch',
        `the registry recorded as ${digest} hashes otherwise`,
      );
  const requested = new Map<string, string | null>();
  for (const r of dataOf(input, 'human.requested')) {
    const action = r.action as { actionId?: string; argsDigest?: string } | undefined;
    if (action?.actionId) requested.set(action.actionId, action.argsDigest ?? null);
  }
  for (const d of decided) {
    const digest = String(d.registryDigest);
    const registry = h.registries.get(digest);
    if (!registry)
      return fail(
        'decisions',
        'decisions.registry_mismatch',
        `decision on ${String(d.actionId)} names an unrecorded registry`,
      );
    if (input.trustedRegistryDigest !== undefined && input.trustedRegistryDigest !== digest)
      return fail(
        'decisions',
        'decisions.registry_untrusted',
        `the run used registry ${digest}, not the trusted one`,
      );
    const verdict = proveDecision(
      input,
      h.firstExecutionRunId ?? '',
      registry,
      digest,
      d,
      requested,
      h.decisions,
    );
    if (verdict !== undefined) return verdict;
  }
  return pass(
    'decisions',
    'decisions.ok',
    `${decided.length} decision(s) verified against the recorded registry`,
  );
}

function proveDecision(
  input: ProofInput,
  firstRunId: string,
  registry: PrincipalRegistry,
  digest: string,
  d: Record<string, unknown>,
  requested: ReadonlyMap<string, string | null>,
  sent: readonly HistoryDecision[],
): ProofCheck | undefined {
  const actionId = String(d.actionId);
  const decision = DECIDED[String(d.decision)];
  const directory = new PrincipalDirectory(digest, registry);
  const candidates = sent.filter((s) => s.name === decision && typeof s.payload.token === 'string');
  if (decision === undefined || candidates.length === 0)
    return fail(
      'decisions',
      'decisions.no_token',
      `no signed ${String(d.decision)} for ${actionId} in the history`,
    );
  let last = '';
  for (const s of candidates) {
    const t = checkDecisionToken(
      s.payload.token as string,
      directory,
      {
        workflowId: input.runId,
        firstExecutionRunId: firstRunId,
        actionId,
        argsDigest: requested.get(actionId) ?? null,
        decision,
        payloadDigest: decisionPayloadDigest(s.payload),
      },
      s.atMs,
      () => false,
    );
    if (t.ok && s.payload.actor === d.actor && t.principal.id === d.actor) return undefined;
    last = t.ok ? 'decision.actor_mismatch' : t.code;
  }
  const signature = ['decision.bad_signature', 'decision.unknown_key', 'decision.principal_mismatch'];
  return signature.includes(last)
    ? fail('decisions', 'decisions.signature_invalid', `${actionId}: ${last}`)
    : fail('decisions', 'decisions.token_unbound', `${actionId}: ${last}`);
}
