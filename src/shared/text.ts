/**
 * The one rule for text that reaches us, on every path (JSON bodies, MCP, fastlane files, the
 * CLI) and the same on both databases (docs/decisions.md, "Text"):
 *
 * - no control characters but tab and line breaks (LF, or CR LF): C0, DEL and C1 controls are
 *   refused, NUL included, which PostgreSQL cannot store at all;
 * - no unpaired surrogates: they are not Unicode text, SQLite would store them mangled and
 *   PostgreSQL refuse them;
 * - a name, or any listing text, must show something: a value of only spaces, zero-width or
 *   bidi-control characters is refused (clear a field with null instead).
 */

/** C0 controls but tab and LF, lone CR, DEL and C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\r(?!\n)/;
/** In a single-line value (a name) line breaks and tabs are controls too. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const LINE_CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
const SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Characters that show nothing: white space, format characters (zero-width, bidi), ignorables. */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}]*$/u;

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Where a character is, for a person: its code point and its 1-based position in the text. */
function describeAt(text: string, index: number): string {
  return `${codePoint(text[index]!)} at character ${[...text.slice(0, index)].length + 1}`;
}

/**
 * The problem with a text, or null when it follows the rule. `singleLine` also refuses tabs and
 * line breaks (names); `visible` refuses a text that shows nothing.
 */
export function textProblem(
  text: string,
  options: { singleLine?: boolean; visible?: boolean } = {},
): string | null {
  const control = (options.singleLine === true ? LINE_CONTROL : CONTROL).exec(text);
  if (control !== null) {
    return control[0] === '\u0000'
      ? 'must not contain the NUL character'
      : `must not contain control characters (${describeAt(text, control.index)})${options.singleLine === true ? '' : '; only tabs and line breaks are allowed'}`;
  }
  const surrogate = SURROGATE.exec(text);
  if (surrogate !== null)
    return `must not contain an unpaired surrogate (${describeAt(text, surrogate.index)})`;
  if (options.visible === true && text.length > 0 && INVISIBLE_ONLY.test(text)) {
    return 'must contain a visible character (it has only spaces, zero-width or direction marks)';
  }
  return null;
}

/**
 * A quick test on raw JSON text: false means no string in it can break the rule (so the parsed
 * value need not be walked). Controls and surrogates reach JSON text only as escapes, or raw as
 * DEL and C1 characters.
 */
export const mayBreakTextRule = (json: string): boolean =>
  /\\[bfr]|\\u00[01]|\\u00[89a-f]|\\u007f|\\ud[89a-f]|[\u007F-\u009F]/i.test(json);

/** The first string (or key) in a JSON value that breaks the rule, with its path (`settings.name`). */
export function findTextProblem(value: unknown, path = ''): { field: string; message: string } | null {
  if (typeof value === 'string') {
    const message = textProblem(value);
    return message === null ? null : { field: path || 'body', message };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findTextProblem(item, `${path}[${index}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      if (keyProblem !== null) return { field: path || 'body', message: `field names ${keyProblem}` };
      const found = findTextProblem(item, path ? `${path}.${key}` : key);
      if (found !== null) return found;
    }
  }
  return null;
}
