import {
  MAX_MEMORY_TTL_SECONDS,
  MAX_RECALLED_ENTRIES,
  MemoryValueSchema,
  type MemoryEntry,
  type MemoryScope,
} from '../../contract/memory.js';
import type { ToolDefinition } from '../../contract/tool.js';
import { authorizeDispatch, type Policy, type PolicySubject } from '../policy/index.js';
import type { DataClassification } from '../../contract/agent-event.js';
import type { RunState } from './run-state.js';

/**
 * The policy sees a memory write as a call of this write tool, with `{ name, value }` as its
 * arguments: a rules policy allows it like any tool (docs/context.md, "Memory").
 */
export const MEMORY_WRITE_TOOL: ToolDefinition = {
  name: 'memory.write',
  version: 'v1',
  description: 'Remember a verified fact for later runs of this thread (harness-internal).',
  effect: 'write',
  parameters: {
    type: 'object',
    properties: { name: { type: 'string' }, value: {} },
    required: ['name', 'value'],
    additionalProperties: false,
  },
};

/** How a host reaches thread memory (a Temporal host: bookkeeping activities). */
export interface ThreadMemoryPort {
  recall(scope: MemoryScope, now: string, limit: number): Promise<MemoryEntry[]>;
  /** @throws when the store refuses the entry or stays unavailable past its retries. */
  write(entry: MemoryEntry): Promise<void>;
}

/** What {@link ThreadMemory.remember} did: written, or refused with a code (nothing stored). */
export type RememberOutcome =
  | { readonly written: true; readonly entryId: string; readonly expiresAt: string | null }
  | { readonly written: false; readonly code: string; readonly message: string };

export interface ThreadMemoryDeps {
  readonly state: RunState;
  readonly policy: Policy;
  readonly subject: PolicySubject | undefined;
  /** The host's memory, asked when used (undefined: none). */
  port(): ThreadMemoryPort | undefined;
  now(): string;
  emit(type: string, data: Record<string, unknown>, classification?: DataClassification): void;
  /** The artifact a fact of this generation was recorded from, if any. */
  evidenceOf(name: string): { readonly id: string; readonly provenance: string } | undefined;
}

/**
 * Thread memory for one run: recall what earlier runs of the thread remembered, and remember a
 * verified fact for later ones. Only facts the run recorded from non-model evidence can be
 * remembered, only when their value is a boolean, a number or identifier-like text (never a
 * sentence, so no instruction rides along), and only when the run's policy allows `memory.write`.
 * Every refusal is an event (`memory.refused`) and stores nothing.
 */
export class ThreadMemory {
  constructor(private readonly d: ThreadMemoryDeps) {}

  /** The thread memory of a run: its state, policy, subject, ports and events, and its facts' evidence. */
  static ofRun(
    run: Pick<ThreadMemoryDeps, 'state' | 'policy' | 'subject' | 'emit'> & {
      readonly ports: { memory?(): ThreadMemoryPort | undefined; now(): string };
    },
    evidence: Pick<ThreadMemoryDeps, 'evidenceOf'>,
  ): ThreadMemory {
    return new ThreadMemory({
      state: run.state,
      policy: run.policy,
      subject: run.subject,
      port: () => run.ports.memory?.(),
      now: () => run.ports.now(),
      emit: (type, data, classification) => run.emit(type, data, classification),
      evidenceOf: (name) => evidence.evidenceOf(name),
    });
  }

  private scope(): MemoryScope {
    return {
      threadId: this.d.state.threadId,
      ...(this.d.subject?.tenantId !== undefined ? { tenantId: this.d.subject.tenantId } : {}),
      ...(this.d.subject?.userId !== undefined ? { userId: this.d.subject.userId } : {}),
    };
  }

  /**
   * The thread's live memory (the newest entry per name), `verified` trust, with provenance.
   * Emits `memory.recalled` with the names and the runs that wrote them. Without a port: none.
   */
  async recall(): Promise<readonly MemoryEntry[]> {
    const port = this.d.port();
    if (port === undefined) return [];
    const entries = await port.recall(this.scope(), this.d.now(), MAX_RECALLED_ENTRIES);
    this.d.emit('memory.recalled', {
      threadId: this.d.state.threadId,
      entries: entries.map((e) => ({ name: e.name, entryId: e.entryId, fromRun: e.provenance.runId })),
    });
    return entries;
  }

  /** Remember the run's verified fact `name` for later runs of its thread (see the class comment). */
  async remember(name: string, options: { readonly ttlSeconds?: number } = {}): Promise<RememberOutcome> {
    const refuse = (code: string, message: string): RememberOutcome => {
      this.d.emit('memory.refused', { name: name.slice(0, 128), code, message });
      return { written: false, code, message };
    };
    const port = this.d.port();
    if (port === undefined) return refuse('memory.unavailable', 'this host keeps no thread memory');
    const value = this.d.state.facts[name];
    const evidence = this.d.evidenceOf(name);
    if (value === undefined || evidence === undefined)
      return refuse(
        'memory.unverified',
        `no fact '${name}' recorded from observed evidence in this run (generation)`,
      );
    if (!MemoryValueSchema.safeParse(value).success)
      return refuse(
        'memory.not_identifier',
        'only booleans, numbers and identifier-like text (no spaces, at most 128 characters) are remembered',
      );
    const now = this.d.now();
    const decision = authorizeDispatch(
      this.d.policy,
      MEMORY_WRITE_TOOL,
      { name, value },
      now,
      this.d.state.facts,
      this.d.subject,
    );
    if (decision.decision !== 'allow')
      return refuse(
        'memory.policy_denied',
        `the policy ${decision.policyVersion} answered ${decision.decision} (${decision.reasonCodes.join(', ') || 'no reason'})`,
      );
    const ttl = Math.min(
      Math.max(1, Math.floor(options.ttlSeconds ?? MAX_MEMORY_TTL_SECONDS)),
      MAX_MEMORY_TTL_SECONDS,
    );
    const entry: MemoryEntry = {
      entryId: `${this.d.state.runId}:memory:${name}`,
      scope: this.scope(),
      name,
      value,
      trust: 'verified',
      provenance: {
        runId: this.d.state.runId,
        evidenceArtifactId: evidence.id,
        evidenceProvenance: evidence.provenance,
        policyVersion: decision.policyVersion,
      },
      createdAt: now,
      expiresAt: new Date(Date.parse(now) + ttl * 1000).toISOString(),
    };
    try {
      await port.write(entry);
    } catch (err) {
      return refuse('memory.write_failed', (err as Error).message.slice(0, 300));
    }
    this.d.emit('memory.written', {
      name,
      entryId: entry.entryId,
      expiresAt: entry.expiresAt,
      evidenceArtifactId: evidence.id,
      policyVersion: decision.policyVersion,
    });
    return { written: true, entryId: entry.entryId, expiresAt: entry.expiresAt };
  }
}
