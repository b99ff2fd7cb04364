import { createHash } from 'node:crypto';
import { INBOX_HTML } from './inbox-page.js';
import { RUN_PAGE_HTML } from './run-page.js';

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
 * The Content-Security-Policy of a page of the service (the approval inbox, the run page; docs/api.md):
 * nothing loads but the page's own inline script and style (by their hashes, computed here from the
 * page so they cannot drift) and fetches to this origin; no plugins, no base or form targets, and no
 * framing by anyone (`frame-ancestors 'none'`, clickjacking).
 */
export function pageCsp(html: string): string {
  return [
    "default-src 'none'",
    `script-src ${inlineHashes(html, 'script').join(' ')}`,
    `style-src ${inlineHashes(html, 'style').join(' ')}`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers a page of the service is sent with. */
export function pageHeaders(html: string): Readonly<Record<string, string>> {
  return {
    'content-security-policy': pageCsp(html),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

/** The approval inbox's CSP. */
export const INBOX_CSP = pageCsp(INBOX_HTML);
/** The headers the inbox page is sent with. */
export const INBOX_HEADERS = pageHeaders(INBOX_HTML);
/** The headers the run page is sent with. */
export const RUN_PAGE_HEADERS = pageHeaders(RUN_PAGE_HTML);
