import type { ModelScript, ScriptEntry } from '../../src/index.js';
import { CODING_BRANCH } from './workflow/coding-profiles.js';

/** Scripted route of `coding.push@v1`. */
export const CODING_PUSH_ROUTE = 'scripted/coding';
/** Scripted route of `coding.pipeline@v1`. */
export const CODING_PIPELINE_ROUTE = 'scripted/coding-pipeline';

/** The path the scripted agent commits (the demo repository's pending change). */
export const CODING_SCRIPT_PATH = 'README.md';

function call(step: number, name: string, args: Record<string, unknown>, version = 'v1'): ScriptEntry {
  return { match: { step }, response: { text: '', toolCalls: [{ name, version, args }] } };
}

function text(step: number, value: string): ScriptEntry {
  return { match: { step }, response: { text: value, toolCalls: [] } };
}

/** status -> commit -> push (steps 0..2), shared by both scripts. */
export const CODING_CHANGE_STEPS: readonly ScriptEntry[] = [
  call(0, 'git.status', {}),
  call(1, 'git.commit', { branch: CODING_BRANCH, message: 'Update README', paths: [CODING_SCRIPT_PATH] }),
  call(2, 'git.push', { branch: CODING_BRANCH }),
];

/**
 * The scripted stand-in model of `coding.push@v1` (not a model: a fixed sequence by step):
 * status -> commit -> push -> verify_remote_branch -> final text.
 */
export const CODING_PUSH_SCRIPT: ModelScript = {
  entries: [
    ...CODING_CHANGE_STEPS,
    call(3, 'git.verify_remote_branch', { branch: CODING_BRANCH }),
    text(4, `Committed README.md and pushed ${CODING_BRANCH}; the remote shows the branch.`),
  ],
  fallback: { text: 'I could not finish the change.', toolCalls: [] },
};

/** The scripted stand-in of `coding.pipeline@v1`: ... -> verify -> pipeline.run -> final text. */
export const CODING_PIPELINE_SCRIPT: ModelScript = {
  entries: [
    ...CODING_CHANGE_STEPS,
    call(3, 'git.verify_remote_branch', { branch: CODING_BRANCH }),
    call(4, 'pipeline.run', { branch: CODING_BRANCH }, 'v2'),
    text(5, `Pushed ${CODING_BRANCH} and ran the pipeline on it.`),
  ],
  fallback: { text: 'I could not finish the change.', toolCalls: [] },
};
