import {
  defineQuery,
  defineSignal,
  defineUpdate,
  setHandler,
  type CancellationScope,
} from '@temporalio/workflow';
import { describeInputIssues } from '../../contract/run-input.js';
import {
  DecideUpdateSchema,
  SIGNAL_NAMES,
  UPDATE_NAMES,
  type DecideUpdate,
  type DecisionOutcome,
  type DecisionSignalName,
} from '../../contract/signals.js';
import { QUERY_NAMES } from '../../contract/visibility.js';
import type { DecisionAuthority } from '../authz/decision-authority.js';
import type { PolicySubject } from '../policy/policy.js';
import type { RunState } from '../runner/run-state.js';
import type { Runner } from '../runner/runner.js';
import { refuseUnlessAccepted } from './decision-refusal.js';
import { toRunView, type RunView } from './run-view.js';

export const approveSignal = defineSignal<[unknown]>(SIGNAL_NAMES.approve);
export const rejectSignal = defineSignal<[unknown]>(SIGNAL_NAMES.reject);
export const reconcileSignal = defineSignal<[unknown]>(SIGNAL_NAMES.reconcile);
export const provideInputSignal = defineSignal<[unknown]>(SIGNAL_NAMES.provideInput);
export const cancelRunSignal = defineSignal<[unknown]>(SIGNAL_NAMES.cancelRun);
export const confirmSignal = defineSignal<[unknown]>(SIGNAL_NAMES.confirm);
export const requestMoreInfoSignal = defineSignal<[unknown]>(SIGNAL_NAMES.requestMoreInfo);
export const decideUpdate = defineUpdate<DecisionOutcome, [DecideUpdate]>(UPDATE_NAMES.decide);
export const stateQuery = defineQuery<RunView>(QUERY_NAMES.state);

/**
 * Register a generation's handlers, in this order: the decision signals, the `decide` update and the
 * `state` query. Every decision goes to the run's human gate; an accepted cancellation cancels
 * `scope`. Records nothing itself (signals buffered before it are delivered now, in their order).
 *
 * Failure semantics: a signal the gate refuses is recorded by the gate, never thrown. The update's
 * validator refuses (an Error, never in history and never counted against the run's update limit) a
 * malformed envelope (`signal.malformed`) and every decision the run would refuse now
 * (decision-refusal.ts); what only taking it can refuse is the update's answer, recorded.
 */
export function setRunHandlers(o: {
  readonly runner: Runner;
  readonly scope: CancellationScope;
  readonly state: RunState;
  readonly subject: PolicySubject;
  readonly authority: DecisionAuthority | undefined;
  readonly firstExecutionRunId: string;
}): void {
  const { runner, scope, state, subject, authority } = o;
  const receive = (signal: DecisionSignalName, payload: unknown): DecisionOutcome => {
    const outcome = runner.gate.receive(signal, payload);
    if (signal === 'cancelRun' && runner.gate.cancelRequest) scope.cancel();
    return outcome;
  };
  setHandler(approveSignal, (p) => void receive('approve', p));
  setHandler(rejectSignal, (p) => void receive('reject', p));
  setHandler(confirmSignal, (p) => void receive('confirm', p));
  setHandler(reconcileSignal, (p) => void receive('reconcile', p));
  setHandler(provideInputSignal, (p) => void receive('provideInput', p));
  setHandler(cancelRunSignal, (p) => void receive('cancelRun', p));
  setHandler(requestMoreInfoSignal, (p) => void receive('requestMoreInfo', p));
  // The same decisions, answered at once. The validator refuses, never in history and never counted
  // against the run's update limit, a malformed envelope and every decision the run would refuse now
  // (decision-refusal.ts); what only taking it can refuse is the update's answer, recorded.
  setHandler(decideUpdate, (u) => receive(u.signal, u.payload), {
    validator: (u) => {
      const parsed = DecideUpdateSchema.safeParse(u);
      if (!parsed.success) throw new Error(`signal.malformed: ${describeInputIssues(parsed.error)}`);
      refuseUnlessAccepted(runner.gate.preview(parsed.data.signal, parsed.data.payload));
    },
  });
  // Versioned facts (agent-run-versioned-facts-v1): the view names each fact's version.
  const facts = () => {
    const versions = runner.evidence.versions.snapshot();
    return Object.keys(versions).length > 0 ? { factVersions: versions } : {};
  };
  setHandler(stateQuery, () =>
    authority
      ? {
          ...toRunView(state),
          ...facts(),
          ...subject,
          ...(runner.gate.pendingArguments !== undefined
            ? { pendingArguments: runner.gate.pendingArguments }
            : {}),
          firstExecutionRunId: o.firstExecutionRunId,
          decisions: [...authority.decisions],
        }
      : { ...toRunView(state), ...facts(), ...subject },
  );
}
