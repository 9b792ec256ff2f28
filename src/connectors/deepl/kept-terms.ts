/**
 * Terms DeepL must leave as written (design.md §14: do-not-translate): each whole-word
 * occurrence goes inside a tag DeepL is told to ignore, the rest of the text is escaped as XML
 * (tag handling reads it as XML), and the answer is read back to plain text.
 */

export const KEEP_TAG = 'keep';

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const unescapeXml = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, '&');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A pattern of the terms as whole words, longest first (so "Weather Pro" wins over "Weather"). */
export function keptTermsPattern(terms: readonly string[]): RegExp | null {
  const sorted = [...new Set(terms)].filter((t) => t !== '').sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${sorted.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, 'gu');
}

/** The text as XML with each kept term inside <keep>. */
export function markKeptTerms(text: string, pattern: RegExp): string {
  let out = '';
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    out += escapeXml(text.slice(last, found.index)) + `<${KEEP_TAG}>${escapeXml(found[0])}</${KEEP_TAG}>`;
    last = found.index + found[0].length;
  }
  return out + escapeXml(text.slice(last));
}

/** DeepL's XML answer as plain text: the keep tags dropped, entities read. */
export function unmarkKeptTerms(xml: string): string {
  return unescapeXml(xml.replace(new RegExp(`</?${KEEP_TAG}>`, 'g'), ''));
}
