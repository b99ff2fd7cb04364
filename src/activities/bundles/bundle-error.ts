import { HarnessError } from '../../contract/errors.js';
import type { BUNDLE_ERROR_CODES } from '../../contract/bundles.js';

export type BundleErrorCode = (typeof BUNDLE_ERROR_CODES)[keyof typeof BUNDLE_ERROR_CODES];

/**
 * A control-plane bundle failure (docs/control-plane.md): `bundle.invalid` (a file or the folder is
 * unreadable or invalid; the message names the file and the field), `bundle.not_found` (a pinned
 * version this worker lacks), `bundle.changed` (same version, other content). Never retryable on the
 * same worker.
 */
export class BundleError extends HarnessError {
  constructor(code: BundleErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
