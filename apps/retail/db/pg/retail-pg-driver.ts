import { createRequire } from 'node:module';
import type pg from 'pg';
import { HarnessError } from '../../../../src/index.js';

const requireHere = createRequire(import.meta.url);

/** The range of `pg` the harness declares (package.json `peerDependencies`, optional). */
const PG_RANGE = '^8.23.1';

/**
 * The optional package `pg`, loaded on first use of the PostgreSQL retail backend, as the harness's
 * own optional-package loader does (apps reach the harness only through its entry points).
 *
 * @throws HarnessError `package.missing` (not retryable) naming `pg` and the command that installs it
 *   when it is not installed; any other load failure as Node raised it.
 */
export function loadPg(): typeof pg {
  try {
    return requireHere('pg') as typeof pg;
  } catch (err) {
    const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
    const missing =
      (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
      typeof message === 'string' &&
      message.includes(`'pg'`);
    if (!missing) throw err;
    throw new HarnessError(
      'package.missing',
      `the PostgreSQL retail database (RETAIL_DB_URL=postgres://…) needs the npm package 'pg', which is not installed. ` +
        `Install it next to agent-harness: npm install pg@'${PG_RANGE}'`,
      { package: 'pg', range: PG_RANGE },
    );
  }
}
