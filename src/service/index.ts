/**
 * `agent-harness/service`: the run service (docs/api.md): an HTTP API over the harness client with
 * bearer identity, tenancy, admission limits, public events as Server-Sent Events, decisions signed on
 * the caller's behalf, metrics, OpenAPI and the approval inbox.
 */
export { createRunService, MAX_BODY_BYTES, type RunServiceOptions } from './run-service.js';
export {
  loadServiceConfig,
  parseServiceConfig,
  requireIssuerAndAudience,
  ServiceConfigSchema,
  type ServiceConfig,
  type ServiceConfigInput,
} from './service-config.js';
export { CallerIdentity, readJwksFile, AuthError, type Caller } from './caller-identity.js';
export { openApiDocument } from './openapi-document.js';
export { ensureDevServiceFiles, mintDevToken, devServiceFiles } from './dev-identity.js';
export { CapsSchema, DEFAULT_BUDGET_CAP, type CapsConfig } from './start-caps.js';
