/**
 * What workflow-sandbox code may not use, beyond the clock (each sandbox-safety test says how it
 * treats `Date`): randomness, the process, timers, performance, crypto, require, asynchronous code,
 * dynamic imports. Each entry: the pattern and the name a failure shows.
 */
export const SANDBOX_FORBIDDEN: readonly [RegExp, string][] = [
  [/\bMath\.random\b/, 'Math.random'],
  [/\bprocess\./, 'process'],
  [/\bset(?:Timeout|Interval|Immediate)\b/, 'timers'],
  [/\bperformance\./, 'performance'],
  [/\bcrypto\./, 'crypto'],
  [/\brequire\(/, 'require'],
  [/\basync\b|\bawait\b|\bPromise\b/, 'asynchronous code'],
  [/\bimport\(/, 'dynamic import'],
];
