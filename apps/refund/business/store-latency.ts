import { RefundErrorCode, RefundExampleError } from './refund-errors.js';

/** Store operations that can be slowed down for fault drills. */
export const STORE_OPERATIONS = [
  'readOrder',
  'readLogistics',
  'searchPolicies',
  'createRefund',
  'findRefundByKey',
  'readRefund',
] as const;
export type StoreOperation = (typeof STORE_OPERATIONS)[number];

/**
 * When `createRefund` sleeps: before touching the store, after the refund row is committed, or
 * after the commit without heartbeating (`after_commit_hang`: a connector that hangs in a live worker,
 * so Temporal's heartbeat timeout declares the call lost although its process is still up).
 */
const LATENCY_PHASES = ['before', 'after_commit', 'after_commit_hang'] as const;
export type LatencyPhase = (typeof LATENCY_PHASES)[number];

/** Injected latency per operation, in milliseconds (absent = 0). */
export interface StoreLatency {
  readonly perOperationMs: Readonly<Partial<Record<StoreOperation, number>>>;
  readonly phase: LatencyPhase;
}

export const LATENCY_ENV = 'HARNESS_REFUND_STORE_LATENCY_MS';
export const LATENCY_PHASE_ENV = 'HARNESS_REFUND_STORE_LATENCY_PHASE';

/** No injected latency. */
export const NO_LATENCY: StoreLatency = { perOperationMs: {}, phase: 'before' };

/** Largest accepted latency: one hour. */
const MAX_LATENCY_MS = 3_600_000;
/** Interval between heartbeats while sleeping. */
const HEARTBEAT_INTERVAL_MS = 1_000;

function parseMs(text: string, source: string): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) > MAX_LATENCY_MS) {
    throw new RefundExampleError(
      RefundErrorCode.latencyConfigInvalid,
      `${LATENCY_ENV}: "${source}" is not a whole number of milliseconds between 0 and ${MAX_LATENCY_MS}`,
      { value: source },
    );
  }
  return Number(trimmed);
}

function isStoreOperation(name: string): name is StoreOperation {
  return (STORE_OPERATIONS as readonly string[]).includes(name);
}

/**
 * Parse the latency variables. `latencyMs` is either one number applied to every operation
 * (`"250"`) or a comma list of `operation=ms` (`"createRefund=8000,readOrder=0"`); empty or absent
 * means no latency. `phase` is `before` (default) or `after_commit`.
 *
 * @throws RefundExampleError `refund.latency_config_invalid` on an unknown operation, a repeated
 *   operation, a value that is not a whole number of ms in [0, 3600000], or an unknown phase.
 */
export function parseStoreLatency(latencyMs: string | undefined, phase?: string): StoreLatency {
  const parsedPhase = parsePhase(phase);
  const raw = latencyMs?.trim() ?? '';
  if (raw === '') return { perOperationMs: {}, phase: parsedPhase };
  if (!raw.includes('=')) {
    const ms = parseMs(raw, raw);
    const all: Partial<Record<StoreOperation, number>> = {};
    for (const op of STORE_OPERATIONS) all[op] = ms;
    return { perOperationMs: all, phase: parsedPhase };
  }
  const perOperationMs: Partial<Record<StoreOperation, number>> = {};
  for (const entry of raw.split(',')) {
    const [name, value, ...rest] = entry.split('=').map((part) => part.trim());
    if (name === undefined || value === undefined || rest.length > 0 || !isStoreOperation(name)) {
      throw new RefundExampleError(
        RefundErrorCode.latencyConfigInvalid,
        `${LATENCY_ENV}: "${entry}" is not operation=ms with an operation among ${STORE_OPERATIONS.join(', ')}`,
        { value: entry },
      );
    }
    if (perOperationMs[name] !== undefined) {
      throw new RefundExampleError(
        RefundErrorCode.latencyConfigInvalid,
        `${LATENCY_ENV}: "${name}" is given twice`,
        {
          value: entry,
        },
      );
    }
    perOperationMs[name] = parseMs(value, entry);
  }
  return { perOperationMs, phase: parsedPhase };
}

function parsePhase(phase: string | undefined): LatencyPhase {
  const raw = phase?.trim() ?? '';
  if (raw === '') return 'before';
  const known = LATENCY_PHASES.find((p) => p === raw);
  if (known !== undefined) return known;
  throw new RefundExampleError(
    RefundErrorCode.latencyConfigInvalid,
    `${LATENCY_PHASE_ENV}: "${raw}" is not one of ${LATENCY_PHASES.join(', ')}`,
    { value: raw },
  );
}

/**
 * Read {@link LATENCY_ENV} and {@link LATENCY_PHASE_ENV} from `env`.
 *
 * @throws RefundExampleError `refund.latency_config_invalid` as {@link parseStoreLatency}.
 */
export function storeLatencyFromEnv(env: NodeJS.ProcessEnv = process.env): StoreLatency {
  return parseStoreLatency(env[LATENCY_ENV], env[LATENCY_PHASE_ENV]);
}

/** Liveness and cancellation of the caller, a subset of the tool context. */
export interface StoreCallContext {
  readonly signal?: AbortSignal;
  heartbeat?(details?: unknown): void;
}

/**
 * Sleep `ms` milliseconds, heartbeating about once a second through `cx.heartbeat` (and once at the
 * start) so a long injected latency does not look like a lost worker.
 *
 * @throws the signal's reason when it is an Error (so a Temporal cancellation keeps its type),
 *   otherwise RefundExampleError `refund.operation_aborted`, as soon as `cx.signal` aborts.
 */
export async function sleepWithHeartbeat(
  ms: number,
  operation: StoreOperation,
  cx: StoreCallContext = {},
): Promise<void> {
  if (ms <= 0) return;
  const deadline = Date.now() + ms;
  for (;;) {
    throwIfAborted(operation, cx.signal);
    const remaining = deadline - Date.now();
    cx.heartbeat?.({ operation, injectedLatencyRemainingMs: Math.max(0, remaining) });
    if (remaining <= 0) return;
    await delay(Math.min(remaining, HEARTBEAT_INTERVAL_MS), cx.signal);
  }
}

function throwIfAborted(operation: StoreOperation, signal: AbortSignal | undefined): void {
  if (signal?.aborted !== true) return;
  const reason: unknown = signal.reason;
  if (reason instanceof Error) throw reason;
  throw new RefundExampleError(
    RefundErrorCode.operationAborted,
    `${operation} was cancelled during injected latency`,
    {
      operation,
    },
  );
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
