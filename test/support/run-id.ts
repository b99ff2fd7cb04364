let counter = 0;

/**
 * A workflow id unique on the shared dev server: `prefix`, the time in base 36 and a counter. Never a
 * decimal millisecond timestamp: 13 digits pass the Luhn check one time in ten, and a run whose
 * output or tool results echo an id (its own or, through memory, an earlier run's) would then carry
 * what the guardrails take for a card number.
 */
export function testRunId(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}
