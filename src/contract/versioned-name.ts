/**
 * `name@version`: the one spelling of a versioned key, for tools, profiles, policies, evaluators,
 * bundles, migrations and model routes alike (`refund.create@v1`). Built here and nowhere by hand.
 * Never throws; it does not check its parts (the registries that accept names do).
 */
export function versionedName(name: string, version: string): string {
  return `${name}@${version}`;
}
