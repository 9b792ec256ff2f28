/**
 * XLIFF 2.0 and 1.2 as translation tools read and write them: one `<file>` per store, one unit per
 * listing field, the store's limit as a size restriction (2.0's size and length restriction
 * module, 1.2's `maxwidth`), context as notes, and each segment's state. Knows nothing of listings:
 * it turns units into a document and back.
 *
 * Built on fast-xml-parser rather than an XLIFF library: the maintained one (`xliff`) drops segment
 * state on read and cannot write it, nor note categories (docs/decisions.md, Translations).
 */
import type * as fastXml from 'fast-xml-parser';
import { lazyModule } from '../../shared/lazy-module.js';
import { decodeReferences, notWellFormed, XliffError } from './xliff-text.js';

export { XliffError, xliffText } from './xliff-text.js';

export type XliffVersion = '2.0' | '1.2';
/** XLIFF 2.0's segment states; 1.2's target states are mapped onto them. */
export type XliffState = 'initial' | 'translated' | 'reviewed' | 'final';

export interface XliffNote {
  category: string;
  text: string;
}

export interface XliffUnit {
  id: string;
  source: string;
  target: string | null;
  state: XliffState;
  /** The most code points the target may have. */
  maxLength?: number;
  notes: XliffNote[];
}

export interface XliffFile {
  id: string;
  /** A person's name for the file (the store's name). */
  original?: string;
  units: XliffUnit[];
}

export interface XliffDocument {
  version: XliffVersion;
  sourceLanguage: string;
  targetLanguage: string;
  files: XliffFile[];
}

const NS_20 = 'urn:oasis:names:tc:xliff:document:2.0';
const NS_SLR = 'urn:oasis:names:tc:xliff:sizerestriction:2.0';
const NS_12 = 'urn:oasis:names:tc:xliff:document:1.2';

const STATE_TO_12: Record<XliffState, string> = {
  initial: 'needs-translation',
  translated: 'translated',
  reviewed: 'signed-off',
  final: 'final',
};
const STATE_FROM_12: Record<string, XliffState> = {
  new: 'initial',
  'needs-translation': 'initial',
  'needs-adaptation': 'initial',
  'needs-l10n': 'initial',
  'needs-review-translation': 'translated',
  'needs-review-adaptation': 'translated',
  'needs-review-l10n': 'translated',
  translated: 'translated',
  'signed-off': 'reviewed',
  final: 'final',
};

/** The XML library, loaded by the first XLIFF export or import rather than at start-up. */
const fastXmlModule = lazyModule<typeof fastXml>('fast-xml-parser');

let builder: fastXml.XMLBuilder | undefined;
const xmlBuilder = () =>
  (builder ??= new (fastXmlModule().XMLBuilder)({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    indentBy: '  ',
    suppressEmptyNode: false,
    processEntities: true,
  }));

const text = (value: string) => ({ '#text': value });

function unit20(unit: XliffUnit) {
  return {
    '@_id': unit.id,
    '@_xml:space': 'preserve',
    ...(unit.maxLength !== undefined && { '@_slr:sizeRestriction': String(unit.maxLength) }),
    ...(unit.notes.length > 0 && {
      notes: {
        note: unit.notes.map((note) => ({ '@_category': note.category, ...text(note.text) })),
      },
    }),
    segment: {
      '@_state': unit.state,
      source: text(unit.source),
      ...(unit.target !== null && { target: text(unit.target) }),
    },
  };
}

function unit12(unit: XliffUnit) {
  return {
    '@_id': unit.id,
    '@_resname': unit.id,
    '@_xml:space': 'preserve',
    ...(unit.maxLength !== undefined && { '@_maxwidth': String(unit.maxLength), '@_size-unit': 'char' }),
    source: text(unit.source),
    ...(unit.target !== null && {
      target: { '@_state': STATE_TO_12[unit.state], ...text(unit.target) },
    }),
    ...(unit.notes.length > 0 && {
      note: unit.notes.map((note) => ({ '@_from': note.category, ...text(note.text) })),
    }),
  };
}

/** The document as XLIFF text, with the XML declaration. */
export function writeXliff(doc: XliffDocument): string {
  const body =
    doc.version === '2.0'
      ? {
          xliff: {
            '@_xmlns': NS_20,
            '@_xmlns:slr': NS_SLR,
            '@_version': '2.0',
            '@_srcLang': doc.sourceLanguage,
            '@_trgLang': doc.targetLanguage,
            file: doc.files.map((file) => ({
              '@_id': file.id,
              ...(file.original !== undefined && { '@_original': file.original }),
              // Sizes count Unicode code points, as the stores count characters.
              'slr:profiles': { '@_generalProfile': 'xliff:codepoints' },
              unit: file.units.map(unit20),
            })),
          },
        }
      : {
          xliff: {
            '@_xmlns': NS_12,
            '@_version': '1.2',
            file: doc.files.map((file) => ({
              '@_original': file.id,
              '@_source-language': doc.sourceLanguage,
              '@_target-language': doc.targetLanguage,
              '@_datatype': 'plaintext',
              ...(file.original !== undefined && { '@_product-name': file.original }),
              body: { 'trans-unit': file.units.map(unit12) },
            })),
          },
        };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xmlBuilder().build(body)}`;
}

// ---- reading ------------------------------------------------------------------------------------

/** A node of fast-xml-parser's ordered output: one element name → its children, attributes under ':@'. */
type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

let parser: fastXml.XMLParser | undefined;
const xmlParser = () =>
  (parser ??= new (fastXmlModule().XMLParser)({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    trimValues: false,
    parseTagValue: false,
    parseAttributeValue: false,
    removeNSPrefix: false,
    // Entities are decoded by us (decodeReferences): the parser leaves numeric references as written.
    processEntities: false,
    // CDATA is text as written: kept apart so that no reference in it is decoded.
    cdataPropName: '#cdata',
    ignoreDeclaration: true,
    ignorePiTags: true,
    commentPropName: '#comment',
  }));

const nameOf = (node: Node): string => Object.keys(node).find((key) => key !== ':@') ?? '';
const childrenOf = (node: Node): Node[] => (node[nameOf(node)] as Node[] | undefined) ?? [];
const attrsOf = (node: Node): Record<string, string> => {
  const attrs = node[':@'];
  if (attrs === undefined) return {};
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(attrs)) decoded[name] = decodeReferences(value);
  return decoded;
};
/** The element name without its namespace prefix (tools write `xlf:unit` as often as `unit`). */
const localName = (node: Node): string => nameOf(node).replace(/^[^:]*:/, '');
const elements = (nodes: Node[], name: string) => nodes.filter((n) => localName(n) === name);

/** Inline elements whose content is text (markers, paired codes): their text is kept. */
const TEXT_WRAPPERS = new Set(['mrk', 'pc', 'g', 'sm', 'em']);

/** The text of a source or target; a placeholder code has no meaning in a store text. */
function textOf(nodes: Node[], where: string): string {
  let out = '';
  for (const node of nodes) {
    const name = nameOf(node);
    if (name === '#text') out += decodeReferences(String(node['#text']));
    else if (name === '#cdata')
      out += childrenOf(node)
        .map((part) => (typeof part['#text'] === 'string' ? part['#text'] : ''))
        .join('');
    else if (name === '#comment') continue;
    else if (TEXT_WRAPPERS.has(localName(node))) out += textOf(childrenOf(node), where);
    else {
      throw new XliffError(
        `the inline code <${localName(node)}> cannot be written to a store text; replace it with plain text`,
        where,
      );
    }
  }
  return out;
}

function notesOf(nodes: Node[], categoryAttr: string): XliffNote[] {
  return nodes.map((note) => ({
    category: attrsOf(note)[categoryAttr] ?? '',
    text: textOf(childrenOf(note), 'note'),
  }));
}

function readUnit20(fileId: string, node: Node): XliffUnit {
  const attrs = attrsOf(node);
  const id = attrs.id;
  if (id === undefined || id === '') throw new XliffError(`a <unit> in file "${fileId}" has no id`);
  const where = `${fileId}/${id}`;
  const children = childrenOf(node);
  const segments = elements(children, 'segment');
  if (segments.length !== 1) {
    throw new XliffError(`has ${segments.length} segments; each store field is one segment`, where);
  }
  const segment = segments[0]!;
  const parts = childrenOf(segment);
  const source = elements(parts, 'source')[0];
  const target = elements(parts, 'target')[0];
  if (source === undefined) throw new XliffError('has no <source>', where);
  const state = attrsOf(segment).state ?? 'initial';
  if (!['initial', 'translated', 'reviewed', 'final'].includes(state)) {
    throw new XliffError(`has the segment state "${state}" (initial, translated, reviewed or final)`, where);
  }
  const size = attrs['slr:sizeRestriction'];
  return {
    id,
    source: textOf(childrenOf(source), where),
    target: target === undefined ? null : textOf(childrenOf(target), where),
    state: state as XliffState,
    ...(size !== undefined && /^\d+$/.test(size) && { maxLength: Number(size) }),
    notes: notesOf(elements(elements(children, 'notes').flatMap(childrenOf), 'note'), 'category'),
  };
}

function readUnit12(fileId: string, node: Node): XliffUnit {
  const attrs = attrsOf(node);
  const id = attrs.resname ?? attrs.id;
  if (id === undefined || id === '') throw new XliffError(`a <trans-unit> in file "${fileId}" has no id`);
  const where = `${fileId}/${id}`;
  const children = childrenOf(node);
  const source = elements(children, 'source')[0];
  const target = elements(children, 'target')[0];
  if (source === undefined) throw new XliffError('has no <source>', where);
  const rawState = target === undefined ? undefined : attrsOf(target).state;
  const state =
    rawState === undefined ? (target === undefined ? 'initial' : 'translated') : STATE_FROM_12[rawState];
  if (state === undefined)
    throw new XliffError(`has the target state "${rawState}", which XLIFF 1.2 does not define`, where);
  const size = attrs.maxwidth;
  return {
    id,
    source: textOf(childrenOf(source), where),
    target: target === undefined ? null : textOf(childrenOf(target), where),
    state,
    ...(size !== undefined && /^\d+$/.test(size) && { maxLength: Number(size) }),
    notes: notesOf(elements(children, 'note'), 'from'),
  };
}

/** Reads an XLIFF 2.x or 1.2 document; anything else, or a malformed one, is an XliffError. */
export function parseXliff(xml: string): XliffDocument {
  // XLIFF never needs a DTD; refusing one keeps entity expansion out of the parser.
  if (/<!DOCTYPE/i.test(xml)) throw new XliffError('a document type declaration (<!DOCTYPE>) is not allowed');
  // The parser is lenient (an unclosed or mismatched element still parses): the validator first.
  const wellFormed = fastXmlModule().XMLValidator.validate(xml);
  if (wellFormed !== true) throw new XliffError(notWellFormed(wellFormed.err));
  let nodes: Node[];
  try {
    nodes = xmlParser().parse(xml) as Node[];
  } catch {
    throw new XliffError('is not well-formed XML');
  }
  const root = nodes.find((n) => localName(n) === 'xliff');
  if (root === undefined) throw new XliffError('has no <xliff> root element');
  const attrs = attrsOf(root);
  const version = attrs.version ?? '';
  const files = elements(childrenOf(root), 'file');
  if (/^2\.\d$/.test(version)) {
    return {
      version: '2.0',
      sourceLanguage: attrs.srcLang ?? '',
      targetLanguage: attrs.trgLang ?? '',
      files: files.map((file) => {
        const id = attrsOf(file).id ?? '';
        // Units may sit in groups: tools regroup freely.
        const units = collect(childrenOf(file), 'unit');
        return { id, units: units.map((unit) => readUnit20(id, unit)) };
      }),
    };
  }
  if (version === '1.2' || version === '1.1') {
    const first = files[0] === undefined ? {} : attrsOf(files[0]);
    return {
      version: '1.2',
      sourceLanguage: first['source-language'] ?? '',
      targetLanguage: first['target-language'] ?? '',
      files: files.map((file) => {
        const id = attrsOf(file).original ?? '';
        const units = collect(childrenOf(file), 'trans-unit');
        return { id, units: units.map((unit) => readUnit12(id, unit)) };
      }),
    };
  }
  throw new XliffError(`has version "${version}"; XLIFF 2.0 and 1.2 are read`);
}

/** Every element of that name below these nodes, in document order (through groups and bodies). */
function collect(nodes: Node[], name: string): Node[] {
  const out: Node[] = [];
  for (const node of nodes) {
    const local = localName(node);
    if (local === name) out.push(node);
    else if (local === 'group' || local === 'body') out.push(...collect(childrenOf(node), name));
  }
  return out;
}
