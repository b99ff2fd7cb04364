import { createRequire } from 'node:module';
import {
  isMissingPackage,
  MissingPackageError,
  type OptionalPackage,
} from '../contract/optional-packages.js';

const requireHere = createRequire(import.meta.url);

/**
 * Load an optional package (see OPTIONAL_PACKAGES) synchronously, on first use of its feature, with
 * CommonJS `require` (every optional package ships a CommonJS build).
 * @param specifier the package or one of its subpaths, e.g. `better-sqlite3` or `pg`.
 * @throws MissingPackageError (`package.missing`) naming the package and how to install it when it
 *   is not installed; any other load failure (a broken native build, say) as Node raised it.
 */
export function requireOptional<T>(pkg: OptionalPackage, specifier: string = pkg): T {
  try {
    return requireHere(specifier) as T;
  } catch (err) {
    if (isMissingPackage(err, pkg)) throw new MissingPackageError(pkg, err);
    throw err;
  }
}

/**
 * Load an optional package, or a module of ours that imports one, with `import()`.
 * @param load the `import()` to run (a literal specifier, so types and bundlers still see it).
 * @throws MissingPackageError (`package.missing`) when `pkg` is not installed; anything else as raised.
 */
export async function importOptional<T>(pkg: OptionalPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissingPackage(err, pkg)) throw new MissingPackageError(pkg, err);
    throw err;
  }
}
