import { HarnessError } from '../../contract/errors.js';
import { NamedRegistry } from '../../registry/named-registry.js';
import { actionWithVerification } from './action-with-verification.js';
import type {
  CompletionContract,
  CompletionEvaluator,
  CompletionInput,
  CompletionVerdict,
} from './completion.js';
import { CompletionContractSchema } from './completion.js';
import { CompletionError } from './completion-error.js';
import { observedRemoteBranch } from './observed-remote-branch.js';
import { pipelineVerification } from './pipeline-verification.js';
import { solutionDelivered } from './solution-delivered.js';

/**
 * Completion evaluators by exact name and version. Registered by trusted composition; a profile's
 * {@link CompletionContract} may only name what is registered here.
 *
 * @throws HarnessError `registry.conflict` / `registry.not_found` / `registry.invalid_name` /
 *   `registry.invalid_version` (see {@link NamedRegistry}); `registry.invalid_name` also for names
 *   that are not lowercase identifiers and `registry.invalid_version` for versions not `vN`.
 */
export class EvaluatorRegistry extends NamedRegistry<CompletionEvaluator> {
  constructor() {
    super({
      kind: 'evaluator',
      validate: (e) => {
        if (!/^[a-z][a-z0-9_.-]{0,63}$/.test(e.name)) {
          throw new HarnessError(
            'registry.invalid_name',
            `evaluator name ${JSON.stringify(e.name)} is not a lowercase identifier`,
            {
              name: e.name,
            },
          );
        }
        if (!/^v[1-9][0-9]*$/.test(e.version)) {
          throw new HarnessError(
            'registry.invalid_version',
            `evaluator version ${JSON.stringify(e.version)} is not vN`,
            {
              name: e.name,
              version: e.version,
            },
          );
        }
      },
    });
  }

  /**
   * Check a contract at composition time: it parses, its evaluator is registered, and the
   * evaluator accepts its params.
   * @throws CompletionError `completion.contract_invalid` for a malformed contract,
   *   HarnessError `registry.not_found` for an unknown evaluator,
   *   CompletionError `completion.params_invalid` for params the evaluator refuses.
   */
  checkContract(contract: CompletionContract): void {
    const parsed = CompletionContractSchema.safeParse(contract);
    if (!parsed.success) {
      throw new CompletionError(
        'completion.contract_invalid',
        `invalid completion contract: ${parsed.error.message}`,
        {},
      );
    }
    const evaluator = this.get(parsed.data.evaluator.name, parsed.data.evaluator.version);
    evaluator.checkParams?.(parsed.data.params ?? {});
  }

  /**
   * Evaluate `input` with the contract's evaluator and the contract's params (never params from
   * events or models).
   * @throws HarnessError `registry.not_found` when the contract names an unregistered evaluator.
   *   Everything else ends in a verdict.
   */
  evaluateContract(contract: CompletionContract, input: Omit<CompletionInput, 'params'>): CompletionVerdict {
    const evaluator = this.get(contract.evaluator.name, contract.evaluator.version);
    return evaluator.evaluate({ ...input, params: contract.params ?? {} });
  }
}

/** The default evaluators of the seed, each `v1`. */
export const DEFAULT_EVALUATORS: readonly CompletionEvaluator[] = [
  solutionDelivered,
  actionWithVerification,
  observedRemoteBranch,
  pipelineVerification,
];

/**
 * A new registry holding `solution_delivered/v1`, `action_with_verification/v1`,
 * `observed_remote_branch/v1` and `pipeline_verification/v1`; register custom evaluators on it.
 */
export function createDefaultEvaluatorRegistry(): EvaluatorRegistry {
  const registry = new EvaluatorRegistry();
  for (const evaluator of DEFAULT_EVALUATORS) registry.register(evaluator);
  return registry;
}
