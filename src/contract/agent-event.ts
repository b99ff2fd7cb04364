export type DataClassification = 'public' | 'internal' | 'confidential' | 'restricted';

/**
 * The AgentEvent envelope of seed 004. Every event carries the run's pinned versions. `sequence` is
 * gap-free per run (also across continue-as-new); events are stored once, unique by run and sequence.
 */
export interface AgentEvent {
  readonly schemaVersion: '1';
  readonly eventId: string;
  readonly traceId: string;
  readonly runId: string;
  readonly threadId: string;
  readonly stepId: string | null;
  readonly attemptId: string | null;
  readonly sequence: number;
  readonly type: string;
  readonly occurredAt: string;
  readonly producer: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly dataClassification: DataClassification;
  readonly versions: RunVersions;
}

/** Everything a run pins at its start and records in state, memo and events. */
export interface RunVersions {
  /** `name@version` */
  readonly profile: string;
  /** `name@version` */
  readonly policy: string;
  readonly toolRegistryDigest: string;
  readonly modelRoute: string;
  readonly configDigest: string;
}
