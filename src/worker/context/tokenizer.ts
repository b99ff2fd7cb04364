import cl100kBase from 'gpt-tokenizer/encoding/cl100k_base';
import o200kBase from 'gpt-tokenizer/encoding/o200k_base';

/** Token encodings bundled with gpt-tokenizer (offline). `o200k_base` is the default. */
export type TokenEncoding = 'o200k_base' | 'cl100k_base';

/**
 * Merges each encoding remembers (pre-token -> tokens): repeated words and keys cost a lookup. The
 * library's default is 100,000; this bounds the memory a worker spends on it to a few MB.
 */
const MERGE_CACHE_ENTRIES = 20_000;

const ENCODINGS = { o200k_base: o200kBase, cl100k_base: cl100kBase } as const;
for (const e of Object.values(ENCODINGS)) e.setMergeCacheSize(MERGE_CACHE_ENTRIES);

/** Special-token text (`<|endoftext|>`) is ordinary text here: no set of special tokens is allowed or refused. */
const AS_PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/**
 * Longest piece one BPE encode call reads. Byte-pair merging is quadratic in the length of one
 * pre-token, and a run without whitespace (`aaaa…`, a base64 blob) is one pre-token: 70,000 such
 * characters took minutes. Longer texts are counted in pieces cut before a whitespace character.
 */
export const MAX_TOKENIZER_PIECE_CHARS = 256;

/**
 * Sum of `count` over `text` cut into pieces of at most {@link MAX_TOKENIZER_PIECE_CHARS} characters,
 * each cut before a whitespace character that follows a non-whitespace one (a pre-token boundary)
 * when the piece has one. A text that short is one piece.
 */
export function countInPieces(text: string, count: (piece: string) => number): number {
  let total = 0;
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + MAX_TOKENIZER_PIECE_CHARS);
    if (end < text.length) {
      for (let i = end; i > start + 1; i--) {
        if (/\s/.test(text[i]!) && !/\s/.test(text[i - 1]!)) {
          end = i;
          break;
        }
      }
    }
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}

/**
 * Token count of `text` under a real BPE encoding, in time linear in its length. Exact, except that a
 * run of more than {@link MAX_TOKENIZER_PIECE_CHARS} characters without whitespace is counted in
 * pieces of that size (a few tokens more at each cut; {@link countInPieces}). Special-token text (e.g.
 * `<|endoftext|>`) is counted as ordinary text, never as a control token. Never throws for any string.
 */
export function countTokens(text: string, encoding: TokenEncoding = 'o200k_base'): number {
  const enc = ENCODINGS[encoding];
  return countInPieces(text, (piece) => enc.countTokens(piece, AS_PLAIN_TEXT));
}

/**
 * Per-message framing overhead of chat formats (role markers and separators), in tokens. Added once
 * per rendered message when estimating a prompt.
 */
export const TOKENS_PER_MESSAGE = 4;

/** How a route's tokens are counted: a bundled BPE encoding, or the conservative estimate. */
export type TokenizerName = TokenEncoding | 'estimate';

/**
 * Conservative token count for a model whose tokenizer is not bundled (e.g. Anthropic's): the larger
 * of 1.25 times the `o200k_base` count and one token per 3 UTF-8 bytes, rounded up. Real tokenizers
 * of current chat models stay below both for prose, code, JSON and CJK text, so a request planned
 * with it does not overflow the window; the price is some unused room.
 */
export function estimateTokens(text: string): number {
  if (text === '') return 0;
  return Math.max(Math.ceil(countTokens(text, 'o200k_base') * 1.25), Math.ceil(Buffer.byteLength(text) / 3));
}

/** Counts tokens of `text` with `tokenizer`. Never throws. */
export function countWith(tokenizer: TokenizerName, text: string): number {
  return tokenizer === 'estimate' ? estimateTokens(text) : countTokens(text, tokenizer);
}

/**
 * The tokenizer of a route when its configuration names none: `o200k_base` for OpenAI's gpt-4o,
 * gpt-4.1, gpt-5 and o-series models and for the scripted provider (which counts usage with it),
 * `cl100k_base` for gpt-4 / gpt-3.5, and the conservative `estimate` for anything else (Anthropic,
 * unknown models behind an OpenAI-compatible endpoint).
 */
export function defaultTokenizer(provider: string, model: string): TokenizerName {
  if (provider === 'scripted') return 'o200k_base';
  if (provider === 'openai') {
    if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o[1-9])/.test(model)) return 'o200k_base';
    if (/^(gpt-4|gpt-3\.5)/.test(model)) return 'cl100k_base';
  }
  return 'estimate';
}
