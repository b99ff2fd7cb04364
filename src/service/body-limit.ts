/** Largest request body (bytes) the run service reads: a task, a decision. Larger is 413 `request.too_large`. */
export const MAX_BODY_BYTES = 256 * 1024;
