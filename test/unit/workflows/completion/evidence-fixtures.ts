import type { Artifact } from '../../../../src/contract/artifact.js';
import type { CompletionInput, InvocationRecord } from '../../../../src/workflows/completion/completion.js';

export function observed(id: string, type: string, extra: Partial<Artifact> = {}): Artifact {
  return { id, type, schemaVersion: '1', provenance: 'observed', ...extra };
}

export function verified(
  id: string,
  subject: { artifactId?: string; externalId?: string },
  status: 'passed' | 'failed',
  type = 'check',
  extra: Partial<Artifact> = {},
): Artifact {
  return {
    id,
    type,
    schemaVersion: '1',
    provenance: 'verified',
    verification: { subject, status },
    ...extra,
  };
}

export function modelArtifact(id: string, type: string, data: unknown): Artifact {
  return { id, type, schemaVersion: '1', provenance: 'model', data };
}

export function inv(
  seq: number,
  tool: string,
  effect: 'read' | 'write',
  artifactIds: string[],
  extra: Partial<InvocationRecord> = {},
): InvocationRecord {
  return { seq, tool, version: 'v1', effect, status: 'succeeded', artifactIds, ...extra };
}

export function input(
  artifacts: Artifact[],
  invocations: InvocationRecord[],
  params: Record<string, unknown> = {},
  finalOutput: unknown = 'done',
): CompletionInput {
  return { finalOutput, artifacts, invocations, params };
}
