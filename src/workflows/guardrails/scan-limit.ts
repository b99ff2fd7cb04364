/**
 * The most characters one guardrail check reads: over the strings of one value the input guardrail
 * checks (its `maxTotalChars` and `maxStringChars` may not be set higher) and of one response the
 * output guardrail checks. Every detector runs in time linear in the text it reads, so this bounds
 * the work of one check inside a workflow task whatever the text looks like. It equals the limit on
 * a run's task (64 KiB of JSON).
 *
 * Text beyond it never passes unread: the input guardrail scans the head and reports
 * `guardrail.input.oversize` (a block unless the configuration lowers that action); the output
 * guardrail blocks the whole response with `guardrail.output.oversize` (rule `oversize.total_chars`),
 * since a response it cannot read in full must not leave the run.
 */
export const GUARDRAIL_MAX_SCAN_CHARS = 64 * 1024;
