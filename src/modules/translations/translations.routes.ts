import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, Ok } from '../../http/schemas.js';
import { AppError } from '../../errors.js';
import { ProjectParams } from '../projects/index.js';
import type { Glossaries } from './glossaries.js';
import type { MachineTranslation } from './machine-translation.js';
import type { TranslationsService } from './translations.service.js';
import * as S from './translations.schemas.js';

const tags = ['translations'];
const Binary = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
/** What translation tools send XLIFF as. */
const XLIFF_TYPES = ['application/xliff+xml', 'application/x-xliff+xml', 'application/xml', 'text/xml'];
/** An XLIFF of one locale holds at most a few dozen units of at most 4,000 characters each. */
const XLIFF_MAX_BYTES = 5 * 1024 * 1024;

/** Translations and glossaries (design.md §14): thin adapters over the translation services. */
export function translationRoutes(
  app: Api,
  services: {
    translations: TranslationsService;
    machineTranslation: MachineTranslation;
    glossaries: Glossaries;
  },
): void {
  const { translations, machineTranslation, glossaries } = services;

  app.get('/projects/:projectId/translations', {
    schema: {
      operationId: 'translations.status',
      tags,
      summary: 'The translation matrix: per target locale, store and field, its state',
      description:
        'Target locales are the listings other than the source locale (design.md §14). A translated text remembers ' +
        'the source it was made from: when the source changes it is `outdated`. Texts written before tracking ' +
        'began, or synced from a store, count as `current` until their source changes.',
      security: BEARER,
      params: ProjectParams,
      response: { 200: S.StatusResponse, ...ERRORS },
    },
    handler: async (request) => ok(await translations.status(contextOf(request), request.params.projectId)),
  });

  app.get('/projects/:projectId/translations.zip', {
    schema: {
      operationId: 'translations.exportAll',
      tags,
      summary: "Every target locale's XLIFF in one zip (`<locale>.xlf`)",
      description:
        'One XLIFF 1.2 file per target locale, zipped: source beside target, with notes for limits and glossary terms, to hand to translators.',
      security: BEARER,
      params: ProjectParams,
      querystring: S.ExportQuery,
      response: {
        200: { description: 'A zip of XLIFF files', content: { 'application/zip': { schema: Binary } } },
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const body = await translations.exportArchive(
        contextOf(request),
        request.params.projectId,
        request.query.version ?? '2.0',
      );
      return reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${request.params.projectId}-xliff.zip"`)
        .send(body);
    },
  });

  app.get('/projects/:projectId/translations/:locale.xlf', {
    schema: {
      operationId: 'translations.export',
      tags,
      summary: 'XLIFF of one target locale, for translators',
      description:
        'XLIFF 2.0 (or 1.2 with `?version=1.2`): one file per store, one unit per field (id = field name) with the ' +
        "source, the current target (or the draft waiting for review), the store's limit as a size restriction " +
        '(2.0: slr:sizeRestriction in code points; 1.2: maxwidth), notes with context, and the state: initial ' +
        '(missing or outdated), translated (a machine draft), reviewed (current).',
      security: BEARER,
      params: S.LocaleParams,
      querystring: S.ExportQuery,
      response: {
        200: {
          description: 'The XLIFF document',
          content: { 'application/xliff+xml': { schema: Type.String() } },
        },
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const { projectId, locale } = request.params;
      const xml = await translations.exportXliff(
        contextOf(request),
        projectId,
        locale,
        request.query.version ?? '2.0',
      );
      return reply
        .type('application/xliff+xml; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${locale}.xlf"`)
        .send(xml);
    },
  });

  app.register(async (scope: Api) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      XLIFF_TYPES,
      // Bytes: the document may be UTF-16 (xliffText decodes it).
      { parseAs: 'buffer', bodyLimit: XLIFF_MAX_BYTES },
      (_r, body, done) => done(null, body),
    );
    scope.addContentTypeParser('*', (_request, _payload, done) =>
      done(
        new AppError(
          'INVALID_REQUEST',
          `Content-Type must be one of ${XLIFF_TYPES.join(', ')}`,
          undefined,
          415,
        ),
      ),
    );
    scope.put('/projects/:projectId/translations/:locale.xlf', {
      schema: {
        operationId: 'translations.import',
        tags,
        summary: "A translator's XLIFF for one locale, all or nothing",
        description:
          'XLIFF 2.x or 1.2 as exported (units may be regrouped, notes and states changed). A unit whose target ' +
          'differs from the exported one is written; an unchanged one whose state was raised (e.g. initial → ' +
          'translated) confirms it: an outdated translation still right, or a draft approved. Every unit is ' +
          'validated like an edit; any problem (named `<store>/<field>`) and nothing is written. UTF-8 or UTF-16; ' +
          'character references decoded. A document that is not well-formed XML is refused whole, naming its line. ' +
          'Up to 5 MiB.',
        security: BEARER,
        params: S.LocaleParams,
        consumes: XLIFF_TYPES,
        response: { 200: S.ImportResponse, ...ERRORS },
      },
      handler: async (request) =>
        ok(
          await translations.importXliff(
            contextOf(request),
            request.params.projectId,
            request.params.locale,
            request.body as Buffer,
          ),
        ),
    });
  });

  app.get('/projects/:projectId/translations/:locale', {
    schema: {
      operationId: 'translations.get',
      tags,
      summary: 'One target locale: source beside target, what each was translated from, drafts',
      description:
        'Each text of the source locale beside the target locale’s, with what the target was translated from, whether the source changed since, and machine drafts waiting for review.',
      security: BEARER,
      params: S.LocaleParams,
      response: { 200: S.LocaleResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await translations.get(contextOf(request), request.params.projectId, request.params.locale)),
  });

  app.post('/projects/:projectId/translations/machine', {
    schema: {
      operationId: 'translations.machine',
      tags,
      summary: 'Machine-translate into drafts (DeepL)',
      description:
        'Drafts are never pushed: a member accepts them. By default the missing and outdated fields are translated. ' +
        'Keywords are translated one by one and kept comma-separated within the limit. A draft over its limit is ' +
        'marked with its length. Provider errors (quota, key, rate limit with Retry-After) are reported per field. ' +
        "Uses the organization's DeepL key, else the instance's DEEPL_API_KEY. Runs synchronously: " +
        '`Prefer: respond-async` is accepted and not applied (no Preference-Applied).',
      security: BEARER,
      params: ProjectParams,
      body: S.MachineBody,
      response: { 200: S.MachineResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await machineTranslation.translate(contextOf(request), request.params.projectId, request.body)),
  });

  app.post('/projects/:projectId/translations/:locale/accept', {
    schema: {
      operationId: 'translations.accept',
      tags,
      summary: 'Accept machine drafts: they become the texts, current',
      description:
        'All drafts of the locale, or those of `store` and `fields`. A draft over its limit is refused when named, ' +
        'skipped (and listed) otherwise. The texts are written like edits (history source `translation`).',
      security: BEARER,
      params: S.LocaleParams,
      body: S.AcceptBody,
      response: { 200: S.AcceptResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(
        await translations.accept(
          contextOf(request),
          request.params.projectId,
          request.params.locale,
          request.body,
        ),
      ),
  });

  app.get('/organization/glossaries', {
    schema: {
      operationId: 'glossaries.list',
      tags,
      summary: "The organization's glossaries and this month's machine translation usage",
      description:
        'Each language pair’s glossary (terms kept as given by DeepL) and how many characters machine translation used this month against the plan’s allowance.',
      security: BEARER,
      response: { 200: S.GlossariesResponse, ...ERRORS },
    },
    handler: async (request) => {
      const ctx = contextOf(request);
      return ok({
        glossaries: await glossaries.list(ctx),
        usage: await machineTranslation.usage(ctx.organizationId),
      });
    },
  });

  app.put('/organization/glossaries/:source/:target', {
    schema: {
      operationId: 'glossaries.set',
      tags,
      summary: 'Set the glossary of a language pair (admin)',
      description:
        'Terms machine translation must render as given: `terms` stay as they are (the app name, trademarks), ' +
        '`entries` map a source term to its target. Replaces the pair’s glossary.',
      security: BEARER,
      params: S.GlossaryParams,
      body: S.GlossaryBody,
      response: { 200: S.GlossaryResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(
        await glossaries.set(contextOf(request), request.params.source, request.params.target, request.body),
      ),
  });

  app.delete('/organization/glossaries/:source/:target', {
    schema: {
      operationId: 'glossaries.delete',
      tags,
      summary: 'Delete the glossary of a language pair (admin)',
      description:
        'Removes the glossary of one language pair, here and its copy at DeepL; later translations of that pair use none. Admins.',
      security: BEARER,
      params: S.GlossaryParams,
      response: { 200: Ok(Type.Object({ deleted: Type.Boolean() })), ...ERRORS },
    },
    handler: async (request) => {
      await glossaries.remove(contextOf(request), request.params.source, request.params.target);
      return ok({ deleted: true });
    },
  });
}
