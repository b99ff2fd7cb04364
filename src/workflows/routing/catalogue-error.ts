import { HarnessError } from '../../contract/errors.js';

/** One problem of a catalogue spec: where (`domains/2/tools/0`), a stable code, and a readable message. */
export interface CatalogueIssue {
  readonly path: string;
  readonly code: CatalogueIssueCode;
  readonly message: string;
}

/** The stable issue codes of an invalid catalogue. */
export type CatalogueIssueCode =
  | 'invalid_shape'
  | 'duplicate_domain'
  | 'unknown_tool'
  | 'ambiguous_tool'
  | 'no_fallback'
  | 'multiple_fallbacks'
  | 'fallback_gated'
  | 'ungated_write'
  | 'gate_not_in_domain'
  | 'gate_not_write'
  | 'duplicate_gate';

/** The error code of every invalid catalogue. */
export const CATALOGUE_INVALID = 'routing.catalogue_invalid';

/** Most issues one error lists (the first ones, in path order); `details.total` counts them all. */
export const MAX_LISTED_ISSUES = 50;

/**
 * Thrown by `compileCatalogue` when a spec is not a valid catalogue: code `routing.catalogue_invalid`,
 * `details.issues` the first {@link MAX_LISTED_ISSUES} issues, `details.total` their number. The
 * message names the first issue's path and message. Not retryable: the spec must change.
 */
export class CatalogueInvalidError extends HarnessError {
  readonly issues: readonly CatalogueIssue[];

  constructor(issues: readonly CatalogueIssue[]) {
    const listed = issues.slice(0, MAX_LISTED_ISSUES);
    const first = listed[0];
    const head = first ? `${first.path || '(root)'}: ${first.message}` : 'no issue listed';
    super(CATALOGUE_INVALID, `invalid capability catalogue (${issues.length} issue(s)); ${head}`, {
      issues: listed,
      total: issues.length,
    });
    this.issues = listed;
  }
}
