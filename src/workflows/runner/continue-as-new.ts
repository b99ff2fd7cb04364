/**
 * Thrown by {@link RunContext.checkpoint} when the host asks for a new history (continue-as-new). It
 * passes through the runner untouched: the workflow catches it, flushes events, waits for handlers and
 * continues as new with the run's state, whose `profileState` holds what the profile needs to resume.
 */
export class ContinueAsNewRequested extends Error {
  constructor() {
    super('continue-as-new requested at a checkpoint');
    this.name = 'ContinueAsNewRequested';
  }
}
