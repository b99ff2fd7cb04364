import { z } from 'zod';
import type { StoredEvent } from './store-records.js';

/** The versions a run pinned at its start (every event's envelope carries them). */
export const RunRecordVersionsSchema = z.strictObject({
  profile: z.string().min(1),
  policy: z.string().min(1),
  toolRegistryDigest: z.string().min(1),
  modelRoute: z.string().min(1),
  configDigest: z.string().min(1),
});

/**
 * What the store keeps of a run (seed 000 §5): pinned profile, policy, registry and config digests,
 * its latest status, waiting reason and node, and at the end its terminal reason, response and
 * budget usage, and (signed runs) who decided. A projection of the run's events, so it says nothing
 * the events do not.
 */
export const RunRecordSchema = z.strictObject({
  runId: z.string().min(1),
  versions: RunRecordVersionsSchema,
  status: z.string().min(1),
  waitingReason: z.string().nullable(),
  node: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().nullable(),
  terminalReason: z.record(z.string(), z.unknown()).nullable(),
  /**
   * The response that left the run (after the output guardrail), when it succeeded or a budget ended
   * it after applied writes (`terminalReason.outcome` `delivered`).
   */
  output: z.unknown(),
  /** Budget usage at the end (steps, calls, tokens, cost). */
  budget: z.record(z.string(), z.unknown()).nullable(),
  /** Sequence of the last event applied. */
  lastSeq: z.number().int().min(0),
  /** The tenant and user the run was started for (its `run.started` event), when it names them. */
  tenantId: z.string().optional(),
  userId: z.string().optional(),
  /**
   * Signed runs: the verified decisions (newest last, at most {@link MAX_RECORDED_DECISIONS}), each
   * naming the principal the run verified. Absent on records of runs without signed decisions.
   */
  decisions: z
    .array(
      z.strictObject({
        actionId: z.string(),
        decision: z.string(),
        principal: z.string(),
        kind: z.string().nullable(),
        registryDigest: z.string().nullable(),
        at: z.string(),
      }),
    )
    .optional(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

const TERMINAL_EVENTS = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/** Most decisions a run record keeps (every decision is also an event). */
export const MAX_RECORDED_DECISIONS = 50;

const VerifiedDecisionSchema = z.looseObject({
  actionId: z.string(),
  decision: z.string(),
  actor: z.string(),
  verified: z.literal(true),
  kind: z.string().optional(),
  registryDigest: z.string().nullable().optional(),
});

const SubjectSchema = z.looseObject({
  tenantId: z.string().min(1).max(200).optional(),
  userId: z.string().min(1).max(200).optional(),
});
const EnvelopeSchema = z.looseObject({ versions: RunRecordVersionsSchema });
const TransitionSchema = z.looseObject({
  toStatus: z.string().min(1),
  node: z.string().nullable().optional(),
  patch: z.record(z.string(), z.unknown()).optional(),
});
const TerminalSchema = z.looseObject({
  status: z.string().min(1).optional(),
  reason: z.record(z.string(), z.unknown()).optional(),
  output: z.unknown().optional(),
  budget: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The run record after `event`, or `current` unchanged when the event says nothing new: an event at
 * or below the record's last sequence (already applied, or out of order), or the first event of a
 * run whose envelope carries no pinned versions (not an agent run). Pure; never throws.
 */
export function applyEventToRun(current: RunRecord | undefined, event: StoredEvent): RunRecord | undefined {
  if (current !== undefined && event.seq <= current.lastSeq) return current;
  let next: RunRecord;
  if (current === undefined) {
    const envelope = EnvelopeSchema.safeParse(event.envelope);
    if (!envelope.success) return undefined;
    next = {
      runId: event.runId,
      versions: envelope.data.versions,
      status: 'created',
      waitingReason: null,
      node: null,
      createdAt: event.occurredAt,
      updatedAt: event.occurredAt,
      endedAt: null,
      terminalReason: null,
      output: null,
      budget: null,
      lastSeq: event.seq,
    };
  } else next = { ...current, updatedAt: event.occurredAt, lastSeq: event.seq };
  if (event.type === 'run.started') {
    const subject = SubjectSchema.safeParse(event.data);
    if (subject.success) {
      if (subject.data.tenantId !== undefined) next.tenantId = subject.data.tenantId;
      if (subject.data.userId !== undefined) next.userId = subject.data.userId;
    }
  } else if (event.type === 'human.decided') {
    const d = VerifiedDecisionSchema.safeParse(event.data);
    if (d.success)
      next.decisions = [
        ...(next.decisions ?? []),
        {
          actionId: d.data.actionId,
          decision: d.data.decision,
          principal: d.data.actor,
          kind: d.data.kind ?? null,
          registryDigest: d.data.registryDigest ?? null,
          at: event.occurredAt,
        },
      ].slice(-MAX_RECORDED_DECISIONS);
  } else if (event.type === 'state.transitioned') {
    const t = TransitionSchema.safeParse(event.data);
    if (t.success) {
      next.status = t.data.toStatus;
      if (t.data.node !== undefined && t.data.node !== null) next.node = t.data.node;
      const waiting = t.data.patch?.waitingReason;
      if (typeof waiting === 'string' || waiting === null) next.waitingReason = waiting;
    }
  } else if (TERMINAL_EVENTS.has(event.type)) {
    const t = TerminalSchema.safeParse(event.data);
    if (t.success) {
      if (t.data.status !== undefined) next.status = t.data.status;
      next.endedAt = event.occurredAt;
      next.waitingReason = null;
      next.terminalReason = t.data.reason ?? null;
      next.output = t.data.output ?? null;
      next.budget = t.data.budget ?? next.budget;
    }
  }
  return next;
}
