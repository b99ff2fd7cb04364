import type { ArgPredicate, FactPredicate } from './rules-schema.js';

/** Predicates and tool globs of policy data, shared by rules and authorization rules. */

type Predicate = ArgPredicate | FactPredicate;

/** Whether a predicate holds for a looked-up value (`found: false` when the pointer or fact is absent). */
export function holds(p: Predicate, actual: { found: true; value: unknown } | { found: false }): boolean {
  if (p.op === 'exists') return actual.found === p.value;
  if (!actual.found) return p.op === 'neq';
  const v = actual.value;
  switch (p.op) {
    case 'eq':
      return v === p.value;
    case 'neq':
      return v !== p.value;
    case 'in':
      return p.value.some((candidate) => candidate === v);
    case 'gt':
      return typeof v === 'number' && v > p.value;
    case 'gte':
      return typeof v === 'number' && v >= p.value;
    case 'lt':
      return typeof v === 'number' && v < p.value;
    case 'lte':
      return typeof v === 'number' && v <= p.value;
  }
}

/** A tool glob (`refund.*`) as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((literal) => literal.replace(/[.\\^$+?()[\]{}|-]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
