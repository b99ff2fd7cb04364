import fc from 'fast-check';
import { it } from 'vitest';
import { confinePath, normalizeRoot } from '/work/main/src/policy/relative-path.js';
it('frac', () => {
  const segment = fc.oneof(
  fc.constantFrom('.', '..', '', 'a', 'b', 'data', 'src', 'lib', 'reports', '2026', 'x.txt', '.hidden', '...', '.. ', ' ', 'data2'),
  fc.string({ unit: fc.constantFrom('a', 'b', '.', ' ', '-', '_', '~', ':', '\\', '\u0000'), maxLength: 4 }));
  const anyPath = fc.tuple(fc.constantFrom('', '/', './'), fc.array(segment, { minLength: 1, maxLength: 7 })).map(([p, s]) => p + s.join('/'));
  const samples = fc.sample(anyPath, 3000);
  for (const roots of [['.'], ['data'], ['data','src/lib']]) {
    const acc = samples.filter((s) => confinePath(s, roots.map(normalizeRoot)).ok).length;
    console.log(roots, acc);
  }
});
