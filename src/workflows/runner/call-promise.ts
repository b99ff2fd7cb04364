/**
 * Promises on the Runner's hot path, made few on purpose.
 *
 * In the workflow sandbox every promise costs the SDK's promise hook: a captured stack trace mapped
 * through the bundle's source map and two functions compiled to find the run (docs/history-cost.md,
 * "Promises per step"). An async function with one `await` makes two promises (its own and the one V8
 * makes for the await while a promise hook is installed); `start().then(done, failed)` makes one and
 * resumes its caller no later. So the model and tool paths are written with `then`: a step's result
 * now reaches the profile in fewer ticks than before.
 *
 * Ordering (why no `patched()` gate is needed, same section): the only two continuations of one
 * activation that both can issue commands are the run's deadline (one tick after its timer fires, it
 * cancels the run's scope) and the Runner after an activity result. Every port keeps one tick of its
 * own between the SDK's promise and the Runner (its `then`), so the Runner's next command comes at its
 * second tick at the earliest, after the deadline's cancellation, as before: the same commands.
 */

/**
 * `start()`, with a synchronous throw turned into a rejected promise, as an async function would.
 * Failure semantics: none of its own; whatever `start` throws or rejects with, the promise rejects with.
 */
export function callPromise<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the thrown value as is, as an async function would reject
    return Promise.reject(err);
  }
}
