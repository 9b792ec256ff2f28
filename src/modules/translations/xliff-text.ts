/**
 * The text of an XLIFF file as XML gives it: bytes to text (UTF-8 or UTF-16), the validator's
 * findings in the import's words, and character references decoded. Knows nothing of XLIFF's
 * elements (xliff.ts reads those).
 */

/** A document that cannot be read as XLIFF; `unit` names the unit (`<file>/<unit>`) when one is at fault. */
export class XliffError extends Error {
  constructor(
    message: string,
    readonly unit?: string,
  ) {
    super(message);
    this.name = 'XliffError';
  }
}

/**
 * The document's text from its bytes: UTF-8, or UTF-16 with its byte order mark (or, without one,
 * its `<` as the first character), as XML allows; any other encoding is refused by name.
 */
export function xliffText(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [a, b] = [buffer[0], buffer[1]];
  const encoding =
    (a === 0xff && b === 0xfe) || (a === 0x3c && b === 0x00)
      ? 'utf-16le'
      : (a === 0xfe && b === 0xff) || (a === 0x00 && b === 0x3c)
        ? 'utf-16be'
        : 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(buffer);
  } catch {
    throw new XliffError(`is not valid ${encoding.toUpperCase()} text`);
  }
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  if (declared !== undefined && !/^utf-?(8|16)$/i.test(declared)) {
    throw new XliffError(`is declared as ${declared}; XLIFF files are read as UTF-8 or UTF-16`);
  }
  return text;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z_][\w.-]*)?(;?)/g;

/**
 * The text with XML's references decoded: numeric character references (`&#252;`, `&#xFC;`) and
 * the five predefined entities, nothing else — a document without a DTD defines no other.
 */
export function decodeReferences(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(REFERENCE, (whole, name: string | undefined, semicolon: string) => {
    if (name === undefined || semicolon === '') {
      throw new XliffError(`has "${whole}" that starts no character reference; write & as &amp;`);
    }
    if (!name.startsWith('#')) {
      const character = PREDEFINED[name];
      if (character === undefined) {
        throw new XliffError(
          `uses the entity &${name};, which XML does not define without a DTD; write the character itself or a numeric reference`,
        );
      }
      return character;
    }
    const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    const allowed =
      code === 0x9 ||
      code === 0xa ||
      code === 0xd ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      (code >= 0x10000 && code <= 0x10ffff);
    if (!allowed) throw new XliffError(`has the reference ${whole}, which is not a character XML allows`);
    return String.fromCodePoint(code);
  });
}

/** The validator's finding in the words of the import: where, and what is wrong there. */
export function notWellFormed(err: { code: string; msg: string; line: number; col: number }): string {
  const where = `is not well-formed XML (line ${err.line}, column ${err.col})`;
  if (err.code === 'InvalidXml' && err.msg.startsWith("Invalid '[")) {
    // Elements still open at the end: `Invalid '["xliff","file"]' found.`
    const open = [...err.msg.matchAll(/"([^"]+)"/g)].map((m) => `<${m[1]}>`);
    return `is not well-formed XML: it ends with ${open.join(', ')} still open (a truncated file?)`;
  }
  if (err.code === 'InvalidChar' && err.msg.includes("'&'"))
    return `${where}: an & that starts no reference; write &amp;`;
  return `${where}: ${err.msg}`;
}
