import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

/** Token encodings bundled with js-tiktoken (offline). `o200k_base` is the default. */
export type TokenEncoding = 'o200k_base' | 'cl100k_base';

const RANKS = { o200k_base: o200kBase, cl100k_base: cl100kBase } as const;
const cache = new Map<TokenEncoding, Tiktoken>();

function encoder(encoding: TokenEncoding): Tiktoken {
  let enc = cache.get(encoding);
  if (enc === undefined) {
    enc = new Tiktoken(RANKS[encoding]);
    cache.set(encoding, enc);
  }
  return enc;
}

/**
 * Exact token count of `text` under a real BPE encoding. Special-token text (e.g. `<|endoftext|>`)
 * is counted as ordinary text, never as a control token. Never throws for any string.
 */
export function countTokens(text: string, encoding: TokenEncoding = 'o200k_base'): number {
  if (text === '') return 0;
  return encoder(encoding).encode(text, [], []).length;
}

/**
 * Per-message framing overhead of chat formats (role markers and separators), in tokens. Added once
 * per rendered message when estimating a prompt.
 */
export const TOKENS_PER_MESSAGE = 4;
