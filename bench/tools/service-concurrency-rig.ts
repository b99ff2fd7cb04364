/**
 * What the concurrency bench (service-concurrency.ts) stands on: the bearer-token issuer and the
 * service's delegate key with a registry that trusts it, the worker process (service-load-worker.ts),
 * and waiting until runs wait for an approval or have ended (by the `state` query, from the bench's
 * own client: the service's spans do not see it).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet } from 'jose';
import {
  decisionKeyFrom,
  generateDecisionKey,
  type DecisionKey,
} from '../../src/client/decisions/decision-key.js';
import type { PrincipalRegistry } from '../../src/contract/principals.js';
import type { RunView } from '../../src/contract/run-view.js';
import { QUERY_NAMES } from '../../src/contract/visibility.js';
import { projectRoot } from '../../src/devserver/config.js';

export interface BenchIdentity {
  readonly issuer: string;
  readonly audience: string;
  readonly jwks: JSONWebKeySet;
  readonly delegateKey: DecisionKey;
  readonly principals: PrincipalRegistry;
  /** `Bearer <jwt>` of tenant's customer (`requester`) or approver (`refund_approver`, `approver`). */
  bearer(tenant: string, who: 'customer' | 'approver'): Promise<string>;
}

export async function benchIdentity(): Promise<BenchIdentity> {
  const issuer = 'https://concurrency.bench.invalid';
  const audience = 'agent-harness-concurrency';
  const generated = generateDecisionKey({
    principal: 'run-service',
    keyId: 'rs-1',
    kind: 'service',
    roles: [],
  });
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return {
    issuer,
    audience,
    jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'EdDSA', use: 'sig' }] },
    delegateKey: decisionKeyFrom(generated.keyFile),
    principals: {
      version: 1,
      principals: [
        {
          ...generated.principal,
          delegation: {
            roles: ['approver', 'refund_approver', 'operator', 'requester'],
            kinds: ['operator', 'approver', 'customer'],
          },
        },
      ],
    },
    bearer: async (tenant, who) =>
      `Bearer ${await new SignJWT({
        tenant,
        roles: who === 'customer' ? ['requester'] : ['refund_approver', 'approver'],
        kind: who,
      })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'k' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(who === 'customer' ? 'C1001' : `dana@${tenant}`)
        .setIssuedAt()
        .setExpirationTime('2h')
        .sign(privateKey)}`,
  };
}

export interface WorkerChild {
  printed(word: string, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** The load worker (service-load-worker.ts) with `env`; killed if this process exits first. */
export function spawnWorker(env: Record<string, string>): WorkerChild {
  const script = join(projectRoot, 'bench', 'tools', 'service-load-worker.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const kill = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
  process.once('exit', kill);
  let seen = '';
  child.stdout.on('data', (b: Buffer) => (seen += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    printed: async (word, timeoutMs) => {
      const until = Date.now() + timeoutMs;
      while (!seen.includes(word)) {
        if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode})`);
        if (Date.now() > until) throw new Error(`worker did not print ${word}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      child.stdin.end();
      const t = setTimeout(kill, 20_000);
      await exited;
      clearTimeout(t);
      process.off('exit', kill);
    },
  };
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Wait (up to 3 minutes) until every run waits for a decision (`pending`: run id -> its action id) or
 * has ended (`ended`: run id -> how many verified decisions it holds; a run that has not ended by then
 * is left out, which fails the bench's one-decision-per-run check). 16 queries at a time.
 * @throws Error naming the runs that never waited.
 */
export async function waitAll(
  client: Client,
  runIds: readonly string[],
  what: 'pending' | 'ended' = 'pending',
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const until = Date.now() + 180_000;
  let todo = [...runIds];
  while (todo.length > 0) {
    const next: string[] = [];
    for (let i = 0; i < todo.length; i += 16) {
      await Promise.all(
        todo.slice(i, i + 16).map(async (runId) => {
          let view: RunView | undefined;
          try {
            view = await client.workflow.getHandle(runId).query<RunView>(QUERY_NAMES.state);
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) view = undefined;
          }
          const p = view?.pendingAction;
          if (what === 'pending' && p && (p.kind === 'human' || p.kind === 'confirmation'))
            out.set(runId, p.actionId);
          else if (what === 'ended' && view && TERMINAL.has(view.status))
            out.set(runId, String(view.decisions?.length ?? 0));
          else next.push(runId);
        }),
      );
    }
    todo = next;
    if (todo.length === 0) break;
    if (Date.now() > until && what === 'ended') return out; // counted as not ended: a failed check
    if (Date.now() > until)
      throw new Error(
        `${todo.length} runs never ${what === 'pending' ? 'waited' : 'ended'}: ${todo.slice(0, 5).join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
  return out;
}
