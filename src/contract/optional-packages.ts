import { HarnessError } from './errors.js';

/**
 * The npm packages the harness uses only for one feature each. They are optional peer dependencies
 * (package.json `peerDependencies` + `peerDependenciesMeta.optional`): installing `agent-harness`
 * does not pull them in, and nothing loads them until the feature is used. The range here is the
 * one package.json states (a unit test keeps the two equal).
 */
export const OPTIONAL_PACKAGES = {
  'better-sqlite3': {
    range: '^12.11.1',
    feature: 'the SQLite evidence store (store URL sqlite:… or a path)',
  },
  pg: { range: '^8.23.1', feature: 'the PostgreSQL evidence store (store URL postgres://…)' },
  openai: { range: '^6.49.0', feature: 'the OpenAI model provider' },
  '@anthropic-ai/sdk': { range: '^1.14.0', feature: 'the Anthropic model provider' },
  '@modelcontextprotocol/sdk': { range: '^1.32.2', feature: 'MCP tools (connectMcpTools)' },
  fastify: { range: '^5.12.8', feature: 'the run service (harness serve, agent-harness/service)' },
  jose: { range: '^6.2.18', feature: 'the run service (harness serve, harness token)' },
  '@temporalio/testing': {
    range: '~1.24.0',
    feature: "the dev server's last-resort Temporal CLI download (harness dev without a CLI or Go)",
  },
} as const satisfies Readonly<Record<string, { readonly range: string; readonly feature: string }>>;

/** The name of an optional package. */
export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/**
 * A feature was used whose optional package is not installed (`package.missing`). Not retryable:
 * the message names the package and the command that installs it; nothing else helps.
 */
export class MissingPackageError extends HarnessError {
  constructor(pkg: OptionalPackage, cause?: unknown) {
    const { range, feature } = OPTIONAL_PACKAGES[pkg];
    super(
      'package.missing',
      `${feature} needs the npm package '${pkg}', which is not installed. ` +
        `Install it next to agent-harness: npm install ${pkg}@'${range}'`,
      { package: pkg, range },
    );
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * True when `err` is Node's "cannot find" error for `pkg` itself (ESM `ERR_MODULE_NOT_FOUND` or CJS
 * `MODULE_NOT_FOUND`), not for some other module that failed to load inside it.
 */
export function isMissingPackage(err: unknown, pkg: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  if (typeof message !== 'string') return false;
  return message.includes(`'${pkg}'`) || message.includes(`'${pkg}/`) || message.includes(`package '${pkg}'`);
}
