/**
 * Validation against the official machine-readable specs: Apple's OpenAPI document and Google's
 * discovery document (vendored under specs/). The emulators check every request body and every
 * response body with it, so that they cannot drift from the real APIs.
 */
import fs from 'node:fs';
import path from 'node:path';
import AjvModule, { type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { PACKAGE_ROOT } from '../shared/package-root.js';

const Ajv = AjvModule.default;
const addFormats = formatsModule.default;

export const SPECS_DIR = path.join(PACKAGE_ROOT, 'specs');

export interface SpecValidator {
  /** Returns null when `body` is valid for the named schema, else a short description of the problems. */
  check(schema: string, body: unknown): string | null;
}

/**
 * Drops `format` keywords whose value is not a string (Apple's document has `"format": null` on
 * AppEvent.deepLink), which JSON Schema does not allow, and spells `nullable` beside `$ref` as
 * JSON Schema does; everything else is kept as published.
 */
function dropInvalidFormats(node: unknown, inProperties = false): void {
  if (Array.isArray(node)) {
    for (const item of node) dropInvalidFormats(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (!inProperties && 'format' in record && typeof record.format !== 'string') delete record.format;
  // `nullable` beside a `$ref` (the phased release's state) means the reference or null; Ajv
  // takes `nullable` only beside `type`.
  if (!inProperties && record.nullable === true && typeof record.$ref === 'string' && !('type' in record)) {
    record.anyOf = [{ $ref: record.$ref }, { type: 'null' }];
    delete record.$ref;
    delete record.nullable;
  }
  for (const [key, value] of Object.entries(record)) dropInvalidFormats(value, key === 'properties');
}

function createValidator(document: object, id: string, refBase: string): SpecValidator {
  dropInvalidFormats(document);
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: id });
  const compiled = new Map<string, ValidateFunction>();
  return {
    check(schema, body) {
      let validate = compiled.get(schema);
      if (validate === undefined) {
        validate = ajv.getSchema(`${id}${refBase}${schema}`);
        if (validate === undefined) throw new Error(`no schema ${schema} in ${id}`);
        compiled.set(schema, validate);
      }
      if (validate(body)) return null;
      return (validate.errors ?? [])
        .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
        .join('; ');
    },
  };
}

let asc: SpecValidator | null = null;
let play: SpecValidator | null = null;

/** App Store Connect: components/schemas of the OpenAPI 3.0 document (its `nullable` is understood by Ajv). */
export function appStoreConnectSpec(): SpecValidator {
  asc ??= createValidator(
    JSON.parse(fs.readFileSync(path.join(SPECS_DIR, 'app-store-connect-api.openapi.json'), 'utf8')) as object,
    'asc',
    '#/components/schemas/',
  );
  return asc;
}

// Discovery formats that are not JSON-schema formats (int64 travels as a string, etc.).
const DISCOVERY_FORMATS = new Set([
  'int64',
  'uint64',
  'int32',
  'uint32',
  'double',
  'float',
  'byte',
  'google-datetime',
  'google-duration',
  'google-fieldmask',
  'date',
]);

/** Turns a discovery-document schema into JSON Schema: `$ref: "Listing"` → `#/definitions/Listing`. */
function fromDiscovery(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fromDiscovery);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = `#/definitions/${value}`;
    else if (key === 'id' || key === 'description' || key === 'readOnly' || key === 'annotations') continue;
    else if (key === 'format' && typeof value === 'string' && DISCOVERY_FORMATS.has(value)) continue;
    else if (key === 'properties' && value !== null && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, schema]) => [
          name,
          fromDiscovery(schema),
        ]),
      );
    } else out[key] = fromDiscovery(value);
  }
  return out;
}

/** Google Play: the `schemas` of the discovery document, converted to JSON Schema. */
export function googlePlaySpec(): SpecValidator {
  if (play === null) {
    const discovery = JSON.parse(
      fs.readFileSync(path.join(SPECS_DIR, 'google-play-android-publisher-v3.discovery.json'), 'utf8'),
    ) as { schemas: Record<string, unknown> };
    const definitions = Object.fromEntries(
      Object.entries(discovery.schemas).map(([name, schema]) => [name, fromDiscovery(schema)]),
    );
    play = createValidator({ definitions }, 'gp', '#/definitions/');
  }
  return play;
}

/** Checks of DeepL's requests and answers, by path and method of its OpenAPI document. */
export interface OperationValidator {
  /** Null when the body is valid for the operation's request body of that content type. */
  request(path: string, method: string, contentType: string, body: unknown): string | null;
  /** Null when the body is valid for the operation's answer with that status (JSON answers). */
  response(path: string, method: string, status: number, body: unknown): string | null;
}

let deepl: OperationValidator | null = null;

/**
 * DeepL: its OpenAPI 3.0 document, checked per operation. Form bodies are checked as DeepL reads
 * them: repeated keys are arrays, "1"/"0" booleans (Ajv's type coercion, on form bodies only).
 */
export function deeplSpec(): OperationValidator {
  if (deepl !== null) return deepl;
  const document = JSON.parse(
    fs.readFileSync(path.join(SPECS_DIR, 'deepl-api.openapi.json'), 'utf8'),
  ) as object;
  dropInvalidFormats(document);
  const make = (coerce: boolean) => {
    const ajv = new Ajv({
      strict: false,
      allErrors: true,
      logger: false,
      validateFormats: true,
      ...(coerce && { coerceTypes: 'array' as const }),
    });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'deepl' });
    return ajv;
  };
  const json = make(false);
  const form = make(true);
  const pointer = (...parts: string[]) =>
    parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
  const compiled = new Map<string, ValidateFunction | null>();
  const run = (ajv: typeof json, ref: string, body: unknown): string | null => {
    const key = `${ajv === form ? 'form' : 'json'} ${ref}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.getSchema(`deepl#/${ref}`) ?? null;
      compiled.set(key, validate);
    }
    if (validate === null) return `the specification has no ${ref.replaceAll('~1', '/')}`;
    if (validate(body)) return null;
    return (validate.errors ?? [])
      .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
      .join('; ');
  };
  deepl = {
    request(route, method, contentType, body) {
      const isForm = contentType === 'application/x-www-form-urlencoded';
      const ref = pointer(
        'paths',
        route,
        method.toLowerCase(),
        'requestBody',
        'content',
        contentType,
        'schema',
      );
      return run(isForm ? form : json, ref, body);
    },
    response(route, method, status, body) {
      const paths = (
        document as {
          paths: Record<string, Record<string, { responses?: Record<string, { $ref?: string }> }>>;
        }
      ).paths;
      const answer = paths[route]?.[method.toLowerCase()]?.responses?.[String(status)];
      if (answer === undefined) return `the specification has no ${status} answer for ${method} ${route}`;
      // Shared answers (errors) are references into components/responses.
      const base = answer.$ref?.startsWith('#/')
        ? answer.$ref.slice(2)
        : pointer('paths', route, method.toLowerCase(), 'responses', String(status));
      return run(json, `${base}/content/application~1json/schema`, body);
    },
  };
  return deepl;
}
