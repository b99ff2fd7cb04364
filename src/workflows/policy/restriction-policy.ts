import type { PolicyDecision } from '../../contract/policy-decision.js';
import type { ToolEffect } from '../../contract/tool.js';
import { ToolEffectSchema } from '../../contract/tool.js';
import { isJsonPointer, resolvePointer } from './json-pointer.js';
import type { Policy, PolicyRequest } from './policy.js';
import { policyVersionOf } from './policy.js';
import { PolicyError } from './policy-error.js';
import { ReasonCodes } from './reason-codes.js';
import type { PathRejection } from './relative-path.js';
import { confinePath, normalizeRoot } from './relative-path.js';

/** Configuration of a {@link RestrictionPolicy}. Trusted composition data. */
export interface RestrictionConfig {
  /** Policy identity written into decisions; default `restriction@v1`. */
  name?: string;
  version?: string;
  /** Exact tool names that may be used; absent means every registered tool, `[]` means none. */
  allowedTools?: readonly string[];
  /** Effects that may be used; absent means both. */
  allowedEffects?: readonly ToolEffect[];
  /**
   * Per tool name, JSON pointers into the arguments that hold paths. A pointed value must be a
   * string or an array of strings; an absent value is not checked (the registered schema decides
   * whether it is required).
   */
  pathFields?: Readonly<Record<string, readonly string[]>>;
  /** Relative roots path fields must stay in; default `['.']` (anywhere inside the workspace). */
  allowedRoots?: readonly string[];
}

/**
 * Allowed tools, allowed effects, and path fields confined to relative allowed roots.
 *
 * At presentation it checks tool and effect (a refused tool is hidden). At dispatch it checks them
 * again and then every configured path field; it denies with every distinct failing code
 * (`policy.tool_not_allowed`, `policy.effect_not_allowed`, `policy.path_*`), otherwise allows with
 * `policy.restrictions_satisfied`. It never asks for confirmation and sets no expiry.
 *
 * @throws PolicyError `policy.config_invalid` from the constructor for an unknown effect, a bad
 *   JSON pointer or an allowed root that is absolute, escapes or is otherwise not a clean path.
 */
export class RestrictionPolicy implements Policy {
  readonly name: string;
  readonly version: string;
  private readonly allowedTools: ReadonlySet<string> | undefined;
  private readonly allowedEffects: ReadonlySet<ToolEffect> | undefined;
  private readonly pathFields: ReadonlyMap<string, readonly string[]>;
  private readonly roots: readonly (readonly string[])[];

  constructor(config: RestrictionConfig) {
    this.name = config.name ?? 'restriction';
    this.version = config.version ?? 'v1';
    this.allowedTools = config.allowedTools === undefined ? undefined : new Set(config.allowedTools);
    if (config.allowedEffects !== undefined) {
      for (const effect of config.allowedEffects) {
        if (!ToolEffectSchema.safeParse(effect).success) {
          throw new PolicyError(
            'policy.config_invalid',
            `allowedEffects: unknown effect ${JSON.stringify(effect)}`,
            {
              field: 'allowedEffects',
            },
          );
        }
      }
      this.allowedEffects = new Set(config.allowedEffects);
    }
    const fields = new Map<string, readonly string[]>();
    for (const [tool, pointers] of Object.entries(config.pathFields ?? {})) {
      for (const pointer of pointers) {
        if (pointer === '' || !isJsonPointer(pointer)) {
          throw new PolicyError(
            'policy.config_invalid',
            `pathFields.${tool}: not a JSON pointer: ${JSON.stringify(pointer)}`,
            {
              field: `pathFields.${tool}`,
            },
          );
        }
      }
      fields.set(tool, [...pointers]);
    }
    this.pathFields = fields;
    this.roots = (config.allowedRoots ?? ['.']).map(normalizeRoot);
  }

  evaluate(req: PolicyRequest): PolicyDecision {
    const codes = new Set<string>();
    if (this.allowedTools !== undefined && !this.allowedTools.has(req.tool.name))
      codes.add(ReasonCodes.toolNotAllowed);
    if (this.allowedEffects !== undefined && !this.allowedEffects.has(req.tool.effect)) {
      codes.add(ReasonCodes.effectNotAllowed);
    }
    if (req.stage === 'dispatch') for (const code of this.pathFailures(req)) codes.add(code);
    const policyVersion = policyVersionOf(this);
    return codes.size > 0
      ? { decision: 'deny', policyVersion, reasonCodes: [...codes], obligations: [] }
      : {
          decision: 'allow',
          policyVersion,
          reasonCodes: [ReasonCodes.restrictionsSatisfied],
          obligations: [],
        };
  }

  private pathFailures(req: PolicyRequest): PathRejection[] {
    const failures: PathRejection[] = [];
    for (const pointer of this.pathFields.get(req.tool.name) ?? []) {
      const resolved = resolvePointer(req.args ?? {}, pointer);
      if (!resolved.found) continue;
      const values: unknown[] = Array.isArray(resolved.value) ? resolved.value : [resolved.value];
      for (const value of values) {
        const check = confinePath(value, this.roots);
        if (!check.ok) failures.push(check.code);
      }
    }
    return failures;
  }
}
