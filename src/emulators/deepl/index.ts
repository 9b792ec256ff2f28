/**
 * A DeepL API emulator (tests, demos only): translate, usage, languages and v2 glossaries, with
 * DeepL's errors (403 bad key, 456 quota, 429 with Retry-After through faults, 400 for what it
 * refuses) — every request body and every answer checked against DeepL's OpenAPI document.
 * Translations are deterministic pseudo-translations: each word's vowels are accented for the
 * target language (German also grows long words, as German does), glossary terms are written as
 * the glossary says, and formality picks the formal or informal "you".
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Faults } from '../faults.js';
import { deeplSpec } from '../spec-validator.js';
import { FORMALITY, SOURCES, TARGETS, pseudoTranslate, pseudoTranslateXml } from './pseudo-translation.js';

export interface DeepLSeed {
  /** Keys DeepL accepts, each with its character limit per billing period. */
  keys?: { key: string; characterLimit?: number }[];
  /** Added to every answer, as a real network would. */
  latencyMs?: number;
}

interface Glossary {
  id: string;
  key: string;
  name: string;
  sourceLang: string;
  targetLang: string;
  entries: Map<string, string>;
  createdAt: string;
}

export function createDeepLState(seed: DeepLSeed = {}) {
  const keys = new Map<string, { limit: number; count: number }>();
  const glossaries = new Map<string, Glossary>();
  let latencyMs = 0;
  /** Every translate request's texts and options, oldest first (tests read what was asked). */
  const requests: {
    targetLang: string;
    texts: string[];
    formality?: string;
    glossaryId?: string;
    ignoreTags?: string[];
  }[] = [];
  const load = (next: DeepLSeed) => {
    for (const entry of next.keys ?? []) {
      keys.set(entry.key, { limit: entry.characterLimit ?? 500_000, count: keys.get(entry.key)?.count ?? 0 });
    }
    if (next.latencyMs !== undefined) latencyMs = next.latencyMs;
  };
  load(seed);
  return {
    keys,
    glossaries,
    requests,
    load,
    get latencyMs() {
      return latencyMs;
    },
    reset() {
      keys.clear();
      glossaries.clear();
      requests.length = 0;
      latencyMs = 0;
    },
  };
}

export type DeepLState = ReturnType<typeof createDeepLState>;

const FORM_BOOLEANS = ['show_billed_characters'];

class DeepLFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A body parameter as text (the specification has already checked its type). */
const param = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : undefined;

export function registerDeepLEmulator(app: FastifyInstance, state: DeepLState, faults: Faults): void {
  const spec = deeplSpec();

  const send = (reply: FastifyReply, route: string, method: string, status: number, body?: unknown) => {
    if (body === undefined) return reply.code(status).send();
    const problem = spec.response(route, method, status, body);
    if (problem !== null)
      throw new Error(`DeepL emulator answer does not match the specification: ${problem}`);
    return reply.code(status).type('application/json').send(body);
  };

  /** The body as DeepL reads it: JSON, or a form whose repeated keys are arrays. */
  const bodyOf = (request: FastifyRequest, route: string): Record<string, unknown> => {
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim();
    let body: Record<string, unknown>;
    if (contentType === 'application/x-www-form-urlencoded') {
      body = {};
      for (const [key, value] of new URLSearchParams(typeof request.body === 'string' ? request.body : '')) {
        const list = body[key];
        if (list === undefined) body[key] = value;
        else body[key] = Array.isArray(list) ? [...(list as string[]), value] : [list, value];
      }
      // DeepL reads a form's "1" and "0" as the booleans its specification types these as.
      for (const flag of FORM_BOOLEANS) {
        if (body[flag] === '1' || body[flag] === '0') body[flag] = body[flag] === '1';
      }
    } else if (contentType === 'application/json') {
      body = (request.body ?? {}) as Record<string, unknown>;
    } else {
      throw new DeepLFailure(415, `Unsupported content type: ${contentType || 'none'}`);
    }
    const problem = spec.request(route, request.method, contentType, body);
    if (problem !== null) throw new DeepLFailure(400, `Bad request. Reason: ${problem}`);
    return body;
  };

  const keyOf = (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const match = /^DeepL-Auth-Key\s+(\S+)$/.exec(header);
    const account = match ? state.keys.get(match[1]!) : undefined;
    if (match === null || account === undefined) {
      throw new DeepLFailure(
        403,
        'Authorization failed. Please supply a valid DeepL-Auth-Key via the Authorization header.',
      );
    }
    return { key: match[1]!, account };
  };

  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
      done(null, body),
    );
    // Which route of the specification a request is, for the error answers' checks.
    const routeOf = (request: FastifyRequest) =>
      (request.routeOptions.url ?? '').replace(':glossaryId', '{glossary_id}');
    scope.addHook('onRequest', async (request, reply) => {
      if (state.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, state.latencyMs));
      const status = await faults.apply(request, reply);
      if (status === 'dropped') return reply;
      if (status !== null) {
        const message =
          status === 429 ? 'Too many requests, please wait and resend your request.' : 'Injected failure';
        return send(reply, routeOf(request), request.method, status, { message });
      }
      return undefined;
    });
    scope.setErrorHandler((error, request, reply) => {
      if (error instanceof DeepLFailure)
        return send(reply, routeOf(request), request.method, error.status, { message: error.message });
      return reply
        .code(500)
        .type('application/json')
        .send({ message: `emulator failure: ${(error as Error).message}` });
    });

    scope.post('/v2/translate', async (request, reply) => {
      const { key, account } = keyOf(request);
      const body = bodyOf(request, '/v2/translate');
      const texts = ([] as unknown[]).concat(body.text ?? []).map(String);
      const target = (param(body.target_lang) ?? '').toUpperCase();
      const source = param(body.source_lang)?.toUpperCase() ?? null;
      if (TARGETS[target] === undefined)
        throw new DeepLFailure(400, "Value for 'target_lang' not supported.");
      if (source !== null && !SOURCES.has(source))
        throw new DeepLFailure(400, "Value for 'source_lang' not supported.");
      if (texts.length === 0 || texts.length > 50)
        throw new DeepLFailure(400, "Parameter 'text' must be given 1 to 50 times.");
      const formality = param(body.formality);
      if ((formality === 'more' || formality === 'less') && !FORMALITY.has(target)) {
        throw new DeepLFailure(400, "'formality' is not supported for given 'target_lang'.");
      }
      let glossary: Glossary | undefined;
      if (body.glossary_id !== undefined) {
        glossary = state.glossaries.get(param(body.glossary_id) ?? '');
        if (glossary === undefined || glossary.key !== key) throw new DeepLFailure(404, 'Glossary not found');
        if (source === null)
          throw new DeepLFailure(400, "Use of a glossary requires the 'source_lang' parameter.");
        if (
          glossary.sourceLang !== source.toLowerCase() ||
          glossary.targetLang !== target.split('-')[0]!.toLowerCase()
        ) {
          throw new DeepLFailure(400, "The glossary's language pair does not match the request's.");
        }
      }
      const tagHandling = param(body.tag_handling);
      if (tagHandling !== undefined && tagHandling !== 'xml' && tagHandling !== 'html')
        throw new DeepLFailure(400, "Value for 'tag_handling' not supported.");
      // Form bodies carry the list comma-separated; JSON bodies as an array.
      const ignoreTags = new Set(
        ([] as unknown[])
          .concat(body.ignore_tags ?? [])
          .flatMap((value) => String(value).split(','))
          .map((tag) => tag.trim())
          .filter((tag) => tag !== ''),
      );
      const characters = texts.reduce((sum, text) => sum + [...text].length, 0);
      if (account.count + characters > account.limit)
        throw new DeepLFailure(456, 'Quota exceeded. The character limit has been reached.');
      const options = {
        ...(formality !== undefined && { formality }),
        ...(glossary && { glossary: glossary.entries }),
      };
      const translated = texts.map((text) =>
        tagHandling === undefined
          ? pseudoTranslate(text, target, options)
          : pseudoTranslateXml(text, target, ignoreTags, options),
      );
      if (translated.some((text) => text === null))
        throw new DeepLFailure(400, 'Tag handling parsing failed, please check input.');
      account.count += characters;
      state.requests.push({
        targetLang: target,
        texts,
        ...(formality !== undefined && { formality }),
        ...(glossary !== undefined && { glossaryId: glossary.id }),
        ...(ignoreTags.size > 0 && { ignoreTags: [...ignoreTags] }),
      });
      const showBilled = ['1', 'true', true].includes(body.show_billed_characters as string | boolean);
      return send(reply, '/v2/translate', 'POST', 200, {
        translations: translated.map((text, index) => ({
          detected_source_language: source ?? 'EN',
          text,
          ...(showBilled && { billed_characters: [...texts[index]!].length }),
        })),
      });
    });

    scope.get('/v2/usage', async (request, reply) => {
      const { account } = keyOf(request);
      return send(reply, '/v2/usage', 'GET', 200, {
        character_count: account.count,
        character_limit: account.limit,
      });
    });

    scope.get('/v2/languages', async (request, reply) => {
      keyOf(request);
      const type = (request.query as { type?: string }).type ?? 'source';
      const list =
        type === 'target'
          ? Object.entries(TARGETS).map(([language, name]) => ({
              language,
              name,
              supports_formality: FORMALITY.has(language),
            }))
          : [...SOURCES].map((language) => ({
              language,
              name: TARGETS[language] ?? TARGETS[`${language}-US`] ?? language,
            }));
      return send(reply, '/v2/languages', 'GET', 200, list);
    });

    scope.get('/v2/glossary-language-pairs', async (request, reply) => {
      keyOf(request);
      const languages = [...SOURCES].map((l) => l.toLowerCase());
      return send(reply, '/v2/glossary-language-pairs', 'GET', 200, {
        supported_languages: languages.flatMap((s) =>
          languages.filter((t) => t !== s).map((t) => ({ source_lang: s, target_lang: t })),
        ),
      });
    });

    const view = (g: Glossary) => ({
      glossary_id: g.id,
      name: g.name,
      ready: true,
      source_lang: g.sourceLang,
      target_lang: g.targetLang,
      creation_time: g.createdAt,
      entry_count: g.entries.size,
    });

    scope.post('/v2/glossaries', async (request, reply) => {
      const { key } = keyOf(request);
      const body = bodyOf(request, '/v2/glossaries');
      const format = String(body.entries_format);
      const separator = format === 'csv' ? ',' : '\t';
      const entries = new Map<string, string>();
      for (const [index, line] of String(body.entries).split(/\r?\n/).entries()) {
        if (line.trim() === '') continue;
        const [term, translation, ...rest] = line.split(separator);
        if (
          !term ||
          !translation ||
          rest.length > 0 ||
          term !== term.trim() ||
          translation !== translation.trim()
        ) {
          throw new DeepLFailure(400, `Invalid glossary entries: line ${index + 1}`);
        }
        if (entries.has(term))
          throw new DeepLFailure(400, `Invalid glossary entries: duplicate source term "${term}"`);
        entries.set(term, translation);
      }
      if (entries.size === 0) throw new DeepLFailure(400, 'Invalid glossary entries: none given');
      const glossary: Glossary = {
        id: randomUUID(),
        key,
        name: String(body.name),
        sourceLang: String(body.source_lang),
        targetLang: String(body.target_lang),
        entries,
        createdAt: new Date().toISOString(),
      };
      state.glossaries.set(glossary.id, glossary);
      return send(reply, '/v2/glossaries', 'POST', 201, view(glossary));
    });

    scope.get('/v2/glossaries', async (request, reply) => {
      const { key } = keyOf(request);
      const mine = [...state.glossaries.values()].filter((g) => g.key === key).map(view);
      return send(reply, '/v2/glossaries', 'GET', 200, { glossaries: mine });
    });

    const owned = (request: FastifyRequest) => {
      const { key } = keyOf(request);
      const glossary = state.glossaries.get((request.params as { glossaryId: string }).glossaryId);
      if (glossary === undefined || glossary.key !== key) throw new DeepLFailure(404, 'Glossary not found');
      return glossary;
    };
    scope.get('/v2/glossaries/:glossaryId', async (request, reply) =>
      send(reply, '/v2/glossaries/{glossary_id}', 'GET', 200, view(owned(request))),
    );
    scope.delete('/v2/glossaries/:glossaryId', async (request, reply) => {
      state.glossaries.delete(owned(request).id);
      return send(reply, '/v2/glossaries/{glossary_id}', 'DELETE', 204);
    });
  });
}
