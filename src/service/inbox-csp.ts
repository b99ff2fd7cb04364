import { createHash } from 'node:crypto';
import { INBOX_HTML } from './inbox-page.js';

/** The sha256 CSP source of each inline `<tag>` block of a page. */
function inlineHashes(html: string, tag: 'script' | 'style'): string[] {
  const hashes: string[] = [];
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  for (let at = html.indexOf(open); at >= 0; at = html.indexOf(open, at + 1)) {
    const end = html.indexOf(close, at);
    if (end < 0) break;
    const body = html.slice(at + open.length, end);
    hashes.push(`'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

/**
 * The Content-Security-Policy of the approval inbox (docs/api.md): nothing loads but the page's own
 * inline script and style (by their hashes, computed here from the page so they cannot drift) and
 * fetches to this origin; no plugins, no base or form targets, and no framing by anyone
 * (`frame-ancestors 'none'`, clickjacking).
 */
export const INBOX_CSP = [
  "default-src 'none'",
  `script-src ${inlineHashes(INBOX_HTML, 'script').join(' ')}`,
  `style-src ${inlineHashes(INBOX_HTML, 'style').join(' ')}`,
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers the inbox page is sent with. */
export const INBOX_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': INBOX_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
