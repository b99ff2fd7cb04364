/**
 * Relative link targets of a Markdown text: inline links and images `[text](target)`, reference
 * definitions `[label]: target` and HTML `href`/`src` attributes, outside fenced code blocks and
 * code spans. Absolute URLs (any scheme) and pure anchors are left out; an anchor is cut off.
 */
export function relativeLinks(markdown: string): string[] {
  const text = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...text.matchAll(/\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map(
      (m) => (m[1] ?? m[2])!,
    ),
    ...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]!),
  ];
  return targets
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#') && !t.startsWith('//'))
    .map((t) => t.split('#')[0]!)
    .filter((t) => t !== '');
}
