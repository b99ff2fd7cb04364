/**
 * The optional peer dependencies (issue 37): the table the error messages use, package.json's
 * peerDependencies/peerDependenciesMeta and the repo's devDependencies say the same thing, and a
 * missing package is told apart from other load failures.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isMissingPackage,
  MissingPackageError,
  OPTIONAL_PACKAGES,
} from '../../../src/contract/optional-packages.js';
import { projectRoot } from '../../../src/devserver/config.js';

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}
const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as PackageJson;
const NOT_INSTALLED = 'agent-harness-test-no-such-package';

async function importError(specifier: string): Promise<unknown> {
  try {
    await import(specifier);
  } catch (err) {
    return err;
  }
  throw new Error(`${specifier} imported`);
}

function requireError(specifier: string): unknown {
  try {
    createRequire(import.meta.url)(specifier);
  } catch (err) {
    return err;
  }
  throw new Error(`${specifier} required`);
}

describe('optional packages', () => {
  it('are exactly the optional peers of package.json, with its ranges, and no runtime dependency', () => {
    const optional = Object.keys(pkg.peerDependenciesMeta).filter(
      (p) => pkg.peerDependenciesMeta[p]!.optional,
    );
    expect(Object.keys(OPTIONAL_PACKAGES).sort()).toEqual(optional.sort());
    for (const [name, { range }] of Object.entries(OPTIONAL_PACKAGES)) {
      expect(pkg.peerDependencies[name], name).toBe(range);
      expect(pkg.devDependencies[name], `${name} stays a devDependency of this repo`).toBe(range);
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });

  it('the Temporal SDK an app constructs is a required peer, one range for all, also a devDependency', () => {
    const temporalPeers = Object.keys(pkg.peerDependencies).filter(
      (p) => p.startsWith('@temporalio/') && !pkg.peerDependenciesMeta[p]?.optional,
    );
    expect(temporalPeers.sort()).toEqual([
      '@temporalio/activity',
      '@temporalio/client',
      '@temporalio/common',
      '@temporalio/worker',
      '@temporalio/workflow',
    ]);
    for (const p of temporalPeers) {
      expect(pkg.peerDependencies[p]).toBe('~1.24.0');
      expect(pkg.devDependencies[p]).toBe('~1.24.0');
      expect(pkg.dependencies[p]).toBeUndefined();
    }
  });

  it("recognises Node's own not-found errors for that package only (ESM and CommonJS)", async () => {
    const esm = await importError(NOT_INSTALLED);
    const cjs = requireError(`${NOT_INSTALLED}/sub/path.js`);
    expect(isMissingPackage(esm, NOT_INSTALLED)).toBe(true);
    expect(isMissingPackage(cjs, NOT_INSTALLED)).toBe(true);
    expect(isMissingPackage(esm, 'pg')).toBe(false);
    expect(isMissingPackage(new Error(`Cannot find package '${NOT_INSTALLED}'`), NOT_INSTALLED)).toBe(false);
    expect(isMissingPackage(undefined, NOT_INSTALLED)).toBe(false);
  });

  it('says which feature needs which package and how to install it', () => {
    const err = new MissingPackageError('pg');
    expect(err.code).toBe('package.missing');
    expect(err.message).toContain('PostgreSQL evidence store');
    expect(err.message).toContain(`npm install pg@'${pkg.peerDependencies.pg}'`);
    expect(err.details).toEqual({ package: 'pg', range: pkg.peerDependencies.pg });
  });
});
