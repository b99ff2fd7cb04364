import { createHash } from 'node:crypto';
import type { ToolCall } from '../../src/index.js';
import { REMOTE_BRANCH_ARTIFACT_TYPE } from '../../src/index.js';
import { artifactIdFor } from '../refund/tools/tool-support.js';
import { remoteBranchExternalId, type ResolvedCodingConfig } from './coding-config.js';
import { gitOk, type GitOptions } from './git-runner.js';

/**
 * Push markers: the remote's own record of which `git.push` invocation put (or confirmed) which
 * commit on which branch. `git.push` writes `refs/harness/push/<run>/<seq>/heads/<branch>` -> sha in
 * the same atomic push as the branch (both or neither), where `<run>` is the sha-256 of the run id
 * and `<seq>` the invocation's seq: together the push's idempotency key `<runId>/<seq>`. A push's
 * reconciler asks for exactly its own marker, and a check (`git.verify_remote_branch`,
 * `pipeline.run`) names the push of its own run whose marker holds the sha it saw, so a push of
 * another run, or an earlier push of this run, never stands in for the write being verified.
 */
export const PUSH_MARKER_PREFIX = 'refs/harness/push';

/** One push marker of a run. */
export interface PushMarker {
  /** The pushing invocation's seq. */
  readonly seq: number;
  readonly branch: string;
  /** The commit the push put on the branch (or found there). */
  readonly sha: string;
}

function runTag(runId: string): string {
  return createHash('sha256').update(runId, 'utf8').digest('hex');
}

/** The marker ref of the push `call` (its run id and seq) for `branch`. */
export function pushMarkerRef(call: Pick<ToolCall, 'runId' | 'seq'>, branch: string): string {
  return `${PUSH_MARKER_PREFIX}/${runTag(call.runId)}/${call.seq}/heads/${branch}`;
}

/**
 * The push markers of run `runId` on the configured remote, read with `git ls-remote`; refs that do
 * not parse as markers are skipped.
 * @throws CodingExampleError `coding.git_failed` when the remote is not readable.
 */
export async function listPushMarkers(
  config: ResolvedCodingConfig,
  runId: string,
  options: GitOptions,
): Promise<PushMarker[]> {
  const prefix = `${PUSH_MARKER_PREFIX}/${runTag(runId)}/`;
  const out = await gitOk(config.repoDir, ['ls-remote', '--', config.remoteDir, `${prefix}*`], options);
  const markers: PushMarker[] = [];
  for (const line of out.split('\n')) {
    const [sha, name] = line.split('\t');
    if (!sha || !name?.startsWith(prefix)) continue;
    const m = /^([1-9][0-9]{0,9})\/heads\/(.+)$/.exec(name.slice(prefix.length));
    if (m?.[1] && m[2]) markers.push({ seq: Number(m[1]), branch: m[2], sha });
  }
  return markers;
}

/** The marker of exactly the push invocation `seq` for `branch`, or undefined. */
export function markerOf(
  markers: readonly PushMarker[],
  seq: number,
  branch: string,
): PushMarker | undefined {
  return markers.find((m) => m.seq === seq && m.branch === branch);
}

/**
 * The push a check at `beforeSeq` vouches for: the latest push of the run (seq below the check's)
 * whose marker holds `sha` on `branch`; undefined when this run pushed no such state.
 */
export function pushOfState(
  markers: readonly PushMarker[],
  branch: string,
  sha: string,
  beforeSeq: number,
): PushMarker | undefined {
  let best: PushMarker | undefined;
  for (const m of markers) {
    if (m.branch !== branch || m.sha !== sha || m.seq >= beforeSeq) continue;
    if (best === undefined || m.seq > best.seq) best = m;
  }
  return best;
}

/** The id of the `git.remote_branch` artifact the push invocation `seq` of the call's run records. */
export function pushArtifactId(call: ToolCall, seq: number): string {
  return artifactIdFor({ ...call, seq }, REMOTE_BRANCH_ARTIFACT_TYPE);
}

/**
 * The verification subject of a check of `<remote>/<branch>@<sha>` by `call`: the external id of
 * that state and, when a push of this run put it there ({@link pushOfState}), the artifact id of
 * that push's observation, so the check vouches for that write only.
 */
export function checkSubject(
  config: ResolvedCodingConfig,
  call: ToolCall,
  branch: string,
  sha: string,
  push: PushMarker | undefined,
): { externalId: string; artifactId?: string } {
  const externalId = remoteBranchExternalId(config.remoteName, branch, sha);
  return push === undefined ? { externalId } : { externalId, artifactId: pushArtifactId(call, push.seq) };
}
