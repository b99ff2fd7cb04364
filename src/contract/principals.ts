import { z } from 'zod';

/**
 * The trusted principal registry (docs/authorization.md): who may decide, with which roles, proven by
 * which public keys. The worker loads it from a file; a run records the digest of the registry its
 * decisions were checked against. Public keys only: the registry holds no secret.
 */

/** What a principal is. A `customer` confirms (its own decision kind) and never approves. */
export const PRINCIPAL_KINDS = ['operator', 'approver', 'customer', 'service'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

/** Most principals in one registry; most keys per principal. */
export const MAX_PRINCIPALS = 1_000;
export const MAX_KEYS_PER_PRINCIPAL = 5;

/** Built on first use (see builtOnFirstUse). */
export const PrincipalIdSchema = z.lazy(() =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/, 'must be 1-128 letters, digits or . _ @ + -'),
);
/** Built on first use (see builtOnFirstUse). */
export const KeyIdSchema = z.lazy(() =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits or . _ -'),
);
/** Built on first use (see builtOnFirstUse). */
export const RoleSchema = z.lazy(() =>
  z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'must be a lowercase role name'),
);

/** Built on first use (see builtOnFirstUse). */
export const PrincipalKeySchema = z.lazy(() =>
  z
    .object({
      id: KeyIdSchema,
      alg: z.literal('Ed25519'),
      /** The raw 32-byte Ed25519 public key, base64url without padding (43 characters). */
      publicKey: z
        .string()
        .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a 32-byte key in base64url (43 characters)'),
      /** The key is refused for tokens issued after this time (rotation); absent means no end. */
      notAfter: z.iso.datetime({ offset: true }).optional(),
    })
    .strict(),
);

/** The kinds of principal a delegate may vouch for (never another service). */
export const DELEGABLE_KINDS = ['operator', 'approver', 'customer'] as const;
export type DelegableKind = (typeof DELEGABLE_KINDS)[number];

/**
 * What a `service` principal (the run service, docs/api.md) may vouch for: it signs decisions on
 * behalf of the people it authenticated, naming them in the token's `obo` claim. Their roles are the
 * roles it vouches for, cut down to `roles`, whatever the registry says of them: a principal the
 * registry lists (in the decision's tenant) keeps no role beyond the vouched ones and `roles`, and
 * must have the kind the delegate vouches for (since `agent-run-trust-scope-v1`; before, a listed
 * principal kept its own kind and roles).
 *
 * Built on first use (see builtOnFirstUse).
 */
export const DelegationSchema = z.lazy(() =>
  z
    .object({
      roles: z.array(RoleSchema).max(20),
      kinds: z
        .array(z.enum(DELEGABLE_KINDS))
        .min(1)
        .max(3)
        .default([...DELEGABLE_KINDS]),
    })
    .strict(),
);

/** Built on first use (see builtOnFirstUse). */
export const PrincipalSchema = z.lazy(() =>
  z
    .object({
      id: PrincipalIdSchema,
      kind: z.enum(PRINCIPAL_KINDS),
      roles: z.array(RoleSchema).max(20).default([]),
      keys: z.array(PrincipalKeySchema).min(1).max(MAX_KEYS_PER_PRINCIPAL),
      displayName: z.string().max(200).optional(),
      /**
       * The tenants this principal decides in (runs started with one of these `tenantId`s); absent:
       * every tenant and tenant-less runs. A person a delegate names in a tenant is this principal
       * only when it lists that tenant (docs/authorization.md, "Tenants"). Checked by runs since
       * `agent-run-trust-scope-v1`.
       */
      tenants: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
      /** Only for `service` principals: it may decide on behalf of the people it authenticated. */
      delegation: DelegationSchema.optional(),
    })
    .strict()
    .refine((p) => p.delegation === undefined || p.kind === 'service', {
      message: 'only a service principal may have a delegation',
      path: ['delegation'],
    }),
);

/** Built on first use (see builtOnFirstUse). */
export const PrincipalRegistrySchema = z.lazy(() =>
  z
    .object({
      version: z.literal(1),
      principals: z.array(PrincipalSchema).max(MAX_PRINCIPALS),
    })
    .strict()
    .superRefine((r, ctx) => {
      const ids = new Set<string>();
      const keys = new Set<string>();
      r.principals.forEach((p, i) => {
        if (ids.has(p.id))
          ctx.addIssue({
            code: 'custom',
            path: ['principals', i, 'id'],
            message: `duplicate principal ${p.id}`,
          });
        ids.add(p.id);
        p.keys.forEach((k, j) => {
          if (keys.has(k.id))
            ctx.addIssue({
              code: 'custom',
              path: ['principals', i, 'keys', j, 'id'],
              message: `key id ${k.id} is used twice (key ids are unique in a registry)`,
            });
          keys.add(k.id);
        });
      });
    }),
);

export type PrincipalKey = z.infer<typeof PrincipalKeySchema>;
export type Principal = z.infer<typeof PrincipalSchema>;
export type Delegation = z.infer<typeof DelegationSchema>;
export type PrincipalRegistry = z.infer<typeof PrincipalRegistrySchema>;
