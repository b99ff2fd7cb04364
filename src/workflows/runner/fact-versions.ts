import { z } from 'zod';

/** Most fact names whose versions a run carries across continue-as-new. */
export const MAX_FACT_VERSIONS = 1_024;

/**
 * Fact versions as a generation hands them to the next: the version of each fact name the run has
 * held (withdrawn ones too, so a fact recorded again never reuses a version). Built on first use.
 */
export const CarriedFactVersionsSchema = z.lazy(() =>
  z
    .record(z.string().min(1).max(100), z.number().int().positive())
    .refine((r) => Object.keys(r).length <= MAX_FACT_VERSIONS, 'too many fact versions'),
);

/** `fact://<name>@v<version>`: a citable reference to one version of a verified fact (seed 004). */
export function factRef(name: string, version: number): string {
  return `fact://${name}@v${version}`;
}

/** What a fact's current version was established by. */
export interface FactVersion {
  readonly version: number;
  /** The invocation (observation) whose artifact the fact was recorded from; null after a withdrawal. */
  readonly observationSeq: number | null;
}

/**
 * The versions of a run's facts (`agent-run-versioned-facts-v1`): each fact name's version starts at 1
 * and goes up by one on each change (recorded with a new value, recorded again after a withdrawal,
 * withdrawn). Deterministic and in memory; carried across continue-as-new by {@link carry}.
 */
export class FactVersions {
  private readonly versions = new Map<string, FactVersion>();

  /** @param carried the previous generation's {@link carry}, already checked. */
  constructor(carried?: Readonly<Record<string, number>>) {
    for (const [name, version] of Object.entries(carried ?? {}))
      this.versions.set(name, { version, observationSeq: null });
  }

  /** The current version of `name` (0: never held). */
  versionOf(name: string): number {
    return this.versions.get(name)?.version ?? 0;
  }

  /** `name` changed: its next version, established by `observationSeq` (null for a withdrawal). */
  bump(name: string, observationSeq: number | null): number {
    const version = this.versionOf(name) + 1;
    this.versions.delete(name); // newest last, so the carry keeps the newest names
    this.versions.set(name, { version, observationSeq });
    return version;
  }

  /** The version of each fact name held now or before, with the observation that established it. */
  snapshot(): Readonly<Record<string, FactVersion>> {
    return Object.fromEntries(this.versions);
  }

  /** What the next generation starts from (the newest {@link MAX_FACT_VERSIONS}); undefined if none. */
  carry(): Record<string, number> | undefined {
    if (this.versions.size === 0) return undefined;
    const entries = [...this.versions].slice(-MAX_FACT_VERSIONS);
    return Object.fromEntries(entries.map(([name, v]) => [name, v.version]));
  }
}
