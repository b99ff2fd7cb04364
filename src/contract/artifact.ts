import { z } from 'zod';

/**
 * Where an artifact comes from:
 * - `model`: produced by a model or a profile (a plan, a summary). Profiles can create only these.
 * - `observed`: an effect or external object a trusted executor reported.
 * - `verified`: an independent check run by a trusted executor; carries a subject and a verdict.
 *
 * Built on first use (see builtOnFirstUse).
 */
export const ArtifactProvenanceSchema = z.lazy(() => z.enum(['model', 'observed', 'verified']));
export type ArtifactProvenance = z.infer<typeof ArtifactProvenanceSchema>;

/** Maximum size in bytes of inline artifact data (JSON-encoded); larger data goes by reference. */
export const MAX_ARTIFACT_INLINE_BYTES = 16 * 1024;

/** Built on first use (see builtOnFirstUse). */
export const VerificationSchema = z.lazy(() =>
  z.object({
    /** What was checked: an artifact id or an external id of an observed action. */
    subject: z
      .object({
        artifactId: z.string().min(1).optional(),
        externalId: z.string().min(1).optional(),
      })
      .refine((s) => s.artifactId !== undefined || s.externalId !== undefined, {
        message: 'a verification subject needs an artifactId or an externalId',
      }),
    status: z.enum(['passed', 'failed']),
  }),
);

/** Built on first use (see builtOnFirstUse). */
export const ArtifactSchema = z.lazy(() =>
  z
    .object({
      id: z.string().min(1).max(200),
      type: z.string().min(1).max(100),
      schemaVersion: z.string().min(1).max(50),
      provenance: ArtifactProvenanceSchema,
      /** Bounded inline data. */
      data: z.unknown().optional(),
      /** Reference to data stored elsewhere, with its digest. */
      ref: z.object({ uri: z.string().min(1), digest: z.string().min(1) }).optional(),
      /** External identifier of the object (refund id, commit sha, branch). */
      externalId: z.string().optional(),
      verification: VerificationSchema.optional(),
    })
    .superRefine((a, ctx) => {
      if (a.provenance === 'verified' && a.verification === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'a verified artifact needs a verification subject and status',
        });
      }
      if (a.provenance !== 'verified' && a.verification !== undefined) {
        ctx.addIssue({ code: 'custom', message: 'only verified artifacts carry a verification' });
      }
      if (a.data !== undefined && JSON.stringify(a.data).length > MAX_ARTIFACT_INLINE_BYTES) {
        ctx.addIssue({
          code: 'custom',
          message: `inline data over ${MAX_ARTIFACT_INLINE_BYTES} bytes; store it by reference`,
        });
      }
    }),
);
export type Artifact = z.infer<typeof ArtifactSchema>;
