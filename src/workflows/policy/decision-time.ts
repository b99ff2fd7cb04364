import type { PolicyDecision } from '../../contract/policy-decision.js';
import { PolicyError } from './policy-error.js';

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Milliseconds since the epoch of an ISO date-time string (with `Z` or an offset). Pure: no clock.
 * @throws PolicyError `policy.request_invalid` when `iso` is not an ISO date-time.
 */
export function parseIsoTime(iso: string): number {
  const ms = ISO_DATETIME.test(iso) ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new PolicyError('policy.request_invalid', `not an ISO date-time: ${JSON.stringify(iso)}`, {
      value: iso,
    });
  }
  return ms;
}

/**
 * `now` plus `seconds`, as an ISO string in UTC (`...Z`).
 * @throws PolicyError `policy.request_invalid` when `now` is not an ISO date-time.
 */
export function addSeconds(now: string, seconds: number): string {
  return new Date(parseIsoTime(now) + seconds * 1000).toISOString();
}

/** The earlier of two optional ISO times (by instant, not by string), or undefined when both are. */
export function earliestExpiry(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return parseIsoTime(b) < parseIsoTime(a) ? b : a;
}

/**
 * True when the decision carries an `expiresAt` at or before `now`. A decision without expiry
 * never expires.
 * @throws PolicyError `policy.request_invalid` when `now` or `expiresAt` is not an ISO date-time.
 */
export function isDecisionExpired(decision: PolicyDecision, now: string): boolean {
  return decision.expiresAt !== undefined && parseIsoTime(decision.expiresAt) <= parseIsoTime(now);
}
