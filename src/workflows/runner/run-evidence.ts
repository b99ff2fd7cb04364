import { ArtifactSchema, type Artifact } from '../../contract/artifact.js';
import { TAINT_FACTS } from '../guardrails/data-taint.js';
import type { RunCore } from './run-core.js';
import { RunStop } from './run-stop.js';
import { factRef, FactVersions } from './fact-versions.js';

/** The artifact a fact was recorded from: what a memory entry cites. */
export interface FactEvidence {
  readonly id: string;
  readonly provenance: string;
}

/**
 * What the evidence rules work through: the run's state and its events. It is the context the
 * profile called (the runner, or a graph node's view of it), passed with each call.
 */
type EvidenceCore = Pick<RunCore, 'state' | 'emit' | 'features'>;

/** A fact name or a withdrawal reason: lowercase dotted words (`order.status`, `order.switched`). */
const DOTTED = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*$/;
/** Longest fact name or withdrawal reason accepted (and kept on a `fact.rejected` event). */
const MAX_DOTTED = 100;
/** Facts the runner keeps itself (the data-taint digests): a profile cannot withdraw them. */
const RUNNER_FACTS: ReadonlySet<string> = new Set(Object.values(TAINT_FACTS));

/**
 * The run's evidence: its artifacts and the facts recorded from them. A fact stands only on an
 * artifact the run holds that the model did not make; a profile adds only model artifacts.
 */
export class RunEvidence {
  /** The artifact each fact of this generation was recorded from (what a memory entry cites). */
  private readonly factEvidence = new Map<string, FactEvidence>();
  /** The facts' versions (`agent-run-versioned-facts-v1`), from the previous generation's. */
  readonly versions: FactVersions;

  constructor(carriedVersions?: Readonly<Record<string, number>>) {
    this.versions = new FactVersions(carriedVersions);
  }

  /**
   * Record fact `name` with `value`, citing artifact `evidenceArtifactId` (see `RunContext.recordFact`).
   * Failure semantics: never throws; evidence that is missing or made by the model records
   * `fact.rejected` (`fact.unverified_evidence`) and leaves the facts unchanged.
   */
  recordFact(
    core: EvidenceCore,
    name: string,
    value: string | number | boolean,
    evidenceArtifactId: string,
  ): void {
    const evidence = core.state.artifacts.find((a) => a.id === evidenceArtifactId);
    if (!evidence || evidence.provenance === 'model') {
      core.emit('fact.rejected', { name, evidenceArtifactId, code: 'fact.unverified_evidence' });
      return;
    }
    const facts = core.state.facts;
    const changed = !Object.prototype.hasOwnProperty.call(facts, name) || facts[name] !== value;
    facts[name] = value;
    this.factEvidence.set(name, { id: evidence.id, provenance: evidence.provenance });
    core.state.budget.stepsWithoutProgress = 0;
    if (!core.features.on('versionedFacts')) {
      core.emit('fact.recorded', { name, value, evidenceArtifactId });
      return;
    }
    // The observation the fact was established from: the invocation that returned its artifact.
    const observation = core.state.invocations.find((i) => i.artifactIds.includes(evidence.id));
    const seq = observation?.seq ?? null;
    const version =
      changed || this.versions.versionOf(name) === 0
        ? this.versions.bump(name, seq)
        : this.versions.versionOf(name);
    core.emit('fact.recorded', {
      name,
      value,
      evidenceArtifactId,
      version,
      ref: factRef(name, version),
      observation: observation
        ? { seq: observation.seq, tool: observation.tool, version: observation.version }
        : null,
    });
  }

  /**
   * The verified facts a person deciding is shown (the data-taint digests left out): versioned refs
   * `fact://<name>@v<version>` (`agent-run-versioned-facts-v1`), else `fact://<name>=<value>` as older
   * runs showed them. Never throws.
   */
  factRefs(core: EvidenceCore): string[] {
    const facts = core.state.facts;
    const versioned = core.features.on('versionedFacts');
    return Object.keys(facts)
      .filter((k) => !k.startsWith('taint.'))
      .map((k) =>
        versioned && this.versions.versionOf(k) > 0
          ? factRef(k, this.versions.versionOf(k))
          : `fact://${k}=${String(facts[k])}`,
      );
  }

  /**
   * Withdraw fact `name`, which no longer holds, for `reason` (see `RunContext.withdrawFact`): it
   * leaves the facts (and its evidence, so it is not remembered) and `fact.withdrawn` records it. A
   * fact the run does not hold: nothing happens, no event. Failure semantics: never throws; a name or
   * reason that is not lowercase dotted (at most 100 characters), or a fact the runner keeps itself
   * (`taint.*`), records `fact.rejected` (`fact.invalid_withdrawal`) and leaves the facts unchanged.
   */
  withdrawFact(core: EvidenceCore, name: string, reason: string): void {
    const valid = (s: string): boolean => s.length <= MAX_DOTTED && DOTTED.test(s);
    if (!valid(name) || !valid(reason) || RUNNER_FACTS.has(name)) {
      core.emit('fact.rejected', {
        name: name.slice(0, MAX_DOTTED),
        reason: reason.slice(0, MAX_DOTTED),
        code: 'fact.invalid_withdrawal',
      });
      return;
    }
    if (!Object.prototype.hasOwnProperty.call(core.state.facts, name)) return;
    delete core.state.facts[name];
    this.factEvidence.delete(name);
    if (core.features.on('versionedFacts'))
      core.emit('fact.withdrawn', { name, reason, version: this.versions.bump(name, null) });
    else core.emit('fact.withdrawn', { name, reason });
  }

  /** The artifact fact `name` was recorded from in this generation, or undefined. Never throws. */
  evidenceOf(name: string): FactEvidence | undefined {
    return this.factEvidence.get(name);
  }

  /**
   * Add an artifact the profile made (see `RunContext.addModelArtifact`); its provenance is `model`.
   * Failure semantics: throws RunStop (`failed`, `artifact.forged_provenance`, after
   * `artifact.rejected`) when it names another provenance; the schema's error when it is malformed.
   */
  addModelArtifact(
    core: EvidenceCore,
    artifact: Omit<Artifact, 'provenance'> & { provenance?: string },
  ): Artifact {
    if (artifact.provenance !== undefined && artifact.provenance !== 'model') {
      core.emit('artifact.rejected', { id: artifact.id, code: 'artifact.forged_provenance' });
      throw new RunStop('failed', {
        code: 'artifact.forged_provenance',
        message: `a profile tried to create a ${artifact.provenance} artifact; profiles create only model artifacts`,
      });
    }
    const parsed = ArtifactSchema.parse({ ...artifact, provenance: 'model' });
    core.state.artifacts.push(parsed);
    core.emit('artifact.recorded', { id: parsed.id, type: parsed.type, provenance: 'model' });
    return parsed;
  }
}
