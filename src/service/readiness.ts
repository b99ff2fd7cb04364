import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { EvidenceStore } from '../activities/store/index.js';
import { checkSearchAttributes, searchAttributeCommands } from '../devserver/search-attributes.js';
import { logServerError } from './request-log.js';

/** One readiness check: ok, or why not. */
export interface ReadinessCheck {
  readonly ok: boolean;
  readonly message?: string;
  /** The search attributes the namespace lacks (or has with another type). */
  readonly missing?: readonly string[];
}

/** What `/readyz` answers. */
export interface Readiness {
  readonly ready: boolean;
  /** The first failing check's message (absent when ready). */
  readonly message?: string;
  readonly checks: {
    readonly temporal: ReadinessCheck;
    readonly store: ReadinessCheck;
    readonly searchAttributes: ReadinessCheck;
  };
}

const cut = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

async function attributesCheck(client: Client): Promise<ReadinessCheck> {
  const namespace = client.options.namespace;
  const { missing, conflicts } = await checkSearchAttributes(client.connection, namespace);
  if (missing.length === 0 && conflicts.length === 0) return { ok: true };
  const parts = [
    ...(missing.length > 0
      ? [
          `namespace ${namespace} has no search attribute ${missing.map((a) => a.name).join(', ')}; create them: ${searchAttributeCommands(namespace, missing).join('; ')}`,
        ]
      : []),
    ...conflicts.map((c) => `search attribute ${c.name} is ${c.have}, the harness needs ${c.want}`),
  ];
  return {
    ok: false,
    message: parts.join('; '),
    missing: [...missing.map((a) => a.name), ...conflicts.map((c) => c.name)],
  };
}

/**
 * Temporal (system info), the evidence store (one run listed) and the namespace's search attributes,
 * checked together. Never throws: a check that throws is reported not ok with its message.
 */
export async function readiness(client: Client, store: EvidenceStore): Promise<Readiness> {
  const settle = async (f: () => Promise<ReadinessCheck>): Promise<ReadinessCheck> => {
    try {
      return await f();
    } catch (err) {
      return { ok: false, message: cut(err) };
    }
  };
  const [temporal, storeCheck, searchAttributes] = await Promise.all([
    settle(async () => {
      await client.workflowService.getSystemInfo({});
      return { ok: true };
    }),
    settle(async () => {
      await store.listRuns({ limit: 1 });
      return { ok: true };
    }),
    settle(() => attributesCheck(client)),
  ]);
  const checks = { temporal, store: storeCheck, searchAttributes };
  const failed = Object.entries(checks).find(([, c]) => !c.ok);
  if (!failed) return { ready: true, checks };
  return { ready: false, message: `${failed[0]}: ${failed[1].message ?? 'not ok'}`, checks };
}

/**
 * `/readyz`: 200 `{ ready: true, checks }` when Temporal, the store and the search attributes are
 * fine, else 503 `{ ready: false, message, checks }` (logged as a server error with its reason).
 */
export function registerReadiness(app: FastifyInstance, client: Client, store: EvidenceStore): void {
  app.get('/readyz', async (req, reply) => {
    const r = await readiness(client, store);
    if (r.ready) return r;
    logServerError(req, 503, `not ready: ${r.message}`);
    return reply.code(503).send(r);
  });
}
