import { ChainHeadClaimsSchema, type ChainHeadClaims } from '../../contract/chain-head.js';

/**
 * The claims of the signed heads in `tokens` that are chain heads of `runId`, signature not checked
 * (the `heads` check verifies every head; the seal and commit-point checks read where heads were
 * signed). A token that is not such a head is left out. Never throws.
 */
export function headClaimsOf(tokens: readonly string[], runId: string): ChainHeadClaims[] {
  const out: ChainHeadClaims[] = [];
  for (const token of tokens) {
    const parts = token.split('.');
    if (parts.length !== 3) continue;
    const claims = ChainHeadClaimsSchema.safeParse(segment(parts[1]));
    if (claims.success && claims.data.run === runId) out.push(claims.data);
  }
  return out;
}

function segment(text: string | undefined): unknown {
  try {
    return JSON.parse(Buffer.from(text ?? '', 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
