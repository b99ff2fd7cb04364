/**
 * The run service as the run-service benches host it: in the bench's process, on the given client
 * and evidence store, trusting the bench's identity (bench-identity.ts), with the admission limits
 * out of the way (these benches measure latency and capacity, not admission) and scripted model
 * routes only. Not listening yet: the caller adds its hooks, then `listen`s.
 */
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { EvidenceStore } from '../../src/contract/evidence-store.js';
import { createRunService } from '../../src/service/run-service.js';
import { parseServiceConfig } from '../../src/service/service-config.js';
import { composeAgentRun } from '../../src/workflows/temporal/agent-run-definition.js';
import { benchBundleDefinition } from '../workflows/definition.js';
import type { BenchIdentity } from './bench-identity.js';

/** @throws as createRunService (a bad configuration). */
export function createBenchService(
  client: Client,
  store: EvidenceStore,
  taskQueue: string,
  id: BenchIdentity,
): FastifyInstance {
  return createRunService({
    client,
    store,
    composition: composeAgentRun(benchBundleDefinition),
    taskQueue,
    config: parseServiceConfig({
      identity: { jwksFile: 'unused', issuer: id.issuer, audience: id.audience },
      delegateKeyFile: 'unused',
      caps: { default: { modelRoutes: ['scripted/*'] } },
      limits: {
        startsPerTenant: { perSecond: 10_000, burst: 100_000 },
        startsPerUser: { perSecond: 10_000, burst: 100_000 },
        activeRunsPerTenant: 1_000_000,
        activeRunsPerUser: 1_000_000,
        decisionsPerUser: { perSecond: 10_000, burst: 100_000 },
      },
    }),
    jwks: id.jwks,
    delegateKey: id.delegateKey,
  });
}
