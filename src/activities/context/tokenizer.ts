import { createRequire } from 'node:module';

/** Token encodings bundled with gpt-tokenizer (offline). `o200k_base` is the default. */
export type TokenEncoding = 'o200k_base' | 'cl100k_base';
const TOKEN_ENCODINGS: ReadonlySet<string> = new Set<TokenEncoding>(['o200k_base', 'cl100k_base']);

/** Special-token text (`<|endoftext|>`) is ordinary text here: no special token is allowed or refused. */
const AS_PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/** What this module uses of one gpt-tokenizer encoding. */
interface Encoding {
  countTokens(text: string, options: typeof AS_PLAIN_TEXT): number;
  setMergeCacheSize(size: number): void;
}

/**
 * Merges each encoding remembers (pre-token -> tokens). A pre-token is at most one piece
 * ({@link MAX_TOKENIZER_PIECE_CHARS}), so an entry is at most a few KB and the cache a few MB per
 * encoding (the library's default of 100,000 entries could hold hundreds of MB of CJK text). Texts are
 * memoised whole by the model activity, so a small cache loses little.
 */
const MERGE_CACHE_ENTRIES = 2_000;

const requireEncoding = createRequire(import.meta.url);
const encodings = new Map<TokenEncoding, Encoding>();

/**
 * The encoding, built on first use (about 15 MB of heap and 0.25 s each): a process that imports the
 * worker entry but counts nothing, or never meets a cl100k_base route, does not pay for it.
 */
function encodingOf(name: TokenEncoding): Encoding {
  let enc = encodings.get(name);
  if (enc === undefined) {
    if (!TOKEN_ENCODINGS.has(name)) throw new RangeError(`unknown token encoding ${String(name)}`);
    enc = requireEncoding(`gpt-tokenizer/cjs/encoding/${name}`) as Encoding;
    enc.setMergeCacheSize(MERGE_CACHE_ENTRIES);
    encodings.set(name, enc);
  }
  return enc;
}

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
 * @throws RangeError for an encoding other than {@link TokenEncoding}'s.
 */
export function countTokens(text: string, encoding: TokenEncoding = 'o200k_base'): number {
  const enc = encodingOf(encoding);
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
