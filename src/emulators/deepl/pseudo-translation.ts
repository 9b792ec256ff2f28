/**
 * The emulator's languages and its deterministic pseudo-translation: each word's vowels accented
 * for the target language (German also grows long words), glossary terms written as the glossary
 * says, and formality picking the formal or informal "you".
 */

export const TARGETS: Record<string, string> = {
  AR: 'Arabic',
  BG: 'Bulgarian',
  CS: 'Czech',
  DA: 'Danish',
  DE: 'German',
  EL: 'Greek',
  'EN-GB': 'English (British)',
  'EN-US': 'English (American)',
  ES: 'Spanish',
  'ES-419': 'Spanish (Latin American)',
  ET: 'Estonian',
  FI: 'Finnish',
  FR: 'French',
  HE: 'Hebrew',
  HU: 'Hungarian',
  ID: 'Indonesian',
  IT: 'Italian',
  JA: 'Japanese',
  KO: 'Korean',
  LT: 'Lithuanian',
  LV: 'Latvian',
  NB: 'Norwegian Bokmål',
  NL: 'Dutch',
  PL: 'Polish',
  'PT-BR': 'Portuguese (Brazilian)',
  'PT-PT': 'Portuguese (European)',
  RO: 'Romanian',
  RU: 'Russian',
  SK: 'Slovak',
  SL: 'Slovenian',
  SV: 'Swedish',
  TH: 'Thai',
  TR: 'Turkish',
  UK: 'Ukrainian',
  VI: 'Vietnamese',
  'ZH-HANS': 'Chinese (simplified)',
  'ZH-HANT': 'Chinese (traditional)',
};
export const SOURCES = new Set(Object.keys(TARGETS).map((code) => code.split('-')[0]!));
export const FORMALITY = new Set([
  'DE',
  'FR',
  'IT',
  'ES',
  'ES-419',
  'NL',
  'PL',
  'PT-BR',
  'PT-PT',
  'JA',
  'RU',
]);
const YOU: Record<string, [formal: string, informal: string]> = {
  DE: ['Sie', 'du'],
  FR: ['vous', 'tu'],
  ES: ['usted', 'tú'],
  IT: ['Lei', 'tu'],
  NL: ['u', 'je'],
};
const ACCENTS: Record<string, Record<string, string>> = {
  DE: { a: 'ä', o: 'ö', u: 'ü', A: 'Ä', O: 'Ö', U: 'Ü' },
  FR: { e: 'é', a: 'à', E: 'É' },
  ES: { a: 'á', i: 'í', o: 'ó', A: 'Á' },
  IT: { a: 'à', o: 'ò', e: 'è' },
};
const DEFAULT_ACCENTS: Record<string, string> = { a: 'å', e: 'ë', o: 'ø', A: 'Å' };

/** Marks a glossary term's place while the rest is translated (a character no text holds). */
const KEPT = String.fromCharCode(0);

/** The pseudo-translation of one text. */
export function pseudoTranslate(
  text: string,
  target: string,
  options: { formality?: string; glossary?: Map<string, string> } = {},
): string {
  const base = target.split('-')[0]!;
  // Glossary terms first, longest first, whole words only; they are put back untouched at the end.
  const kept: string[] = [];
  let work = text;
  const terms = [...(options.glossary?.keys() ?? [])].sort((a, b) => b.length - a.length);
  for (const term of terms) {
    const pattern = new RegExp(
      `(?<![\\p{L}\\p{N}])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`,
      'gu',
    );
    work = work.replace(pattern, () => {
      kept.push(options.glossary!.get(term)!);
      return `${KEPT}${kept.length - 1}${KEPT}`;
    });
  }
  const accents = ACCENTS[base] ?? DEFAULT_ACCENTS;
  const you = YOU[base];
  work = work.replace(/\p{L}+/gu, (word) => {
    if (you !== undefined && word.toLowerCase() === 'you') {
      return options.formality?.endsWith('less')
        ? you[1]
        : options.formality?.endsWith('more')
          ? you[0]
          : you[1];
    }
    let out = [...word].map((c) => accents[c] ?? c).join('');
    if (base === 'DE' && [...word].length >= 6) out += 'en';
    return out;
  });
  return work.replace(new RegExp(`${KEPT}(\\d+)${KEPT}`, 'g'), (_, index: string) => kept[Number(index)]!);
}

/**
 * A text under `tag_handling=xml`: tags and entities pass through, text inside an ignored tag is
 * left as written, the rest is pseudo-translated. Unbalanced tags are refused as DeepL refuses
 * malformed XML (null).
 */
export function pseudoTranslateXml(
  xml: string,
  target: string,
  ignoreTags: ReadonlySet<string>,
  options: { formality?: string; glossary?: Map<string, string> } = {},
): string | null {
  const open: string[] = [];
  let out = '';
  for (const [part] of xml.matchAll(/<\/?[A-Za-z_][\w.-]*\s*\/?>|&(?:[a-z]+|#\d+);|[^<&]+|[<&]/g)) {
    const tag = /^<(\/?)([A-Za-z_][\w.-]*)\s*(\/?)>$/.exec(part);
    if (tag !== null) {
      const [, closing, name, selfClosing] = tag as unknown as [string, string, string, string];
      if (closing === '/') {
        if (open.pop() !== name) return null;
      } else if (selfClosing !== '/') open.push(name);
      out += part;
    } else if (part === '<' || part === '&') return null;
    else if (part.startsWith('&') || open.some((name) => ignoreTags.has(name))) out += part;
    else out += pseudoTranslate(part, target, options);
  }
  return open.length === 0 ? out : null;
}
