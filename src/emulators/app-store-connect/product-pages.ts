/**
 * Custom product pages in the App Store emulator (stores-more.md §B1, checklist 1–7, 13): pages of
 * an app, their versions (no DELETE: Apple has none) and localizations, with Apple's rules —
 * bodies against the spec, locale codes, duplicates, attributes a PATCH may not carry, the
 * promotional text limit, pages per app, and writes only on an editable (draft) version.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError, stateError } from './errors.js';
import {
  findOr404,
  answerOne,
  bodyChecker,
  checkLength,
  checkLocale,
  checkUpdate,
  duplicateLocale,
  entityError,
} from './entity-rules.js';
import type { JsonApi } from './json-api.js';
import type { MarketingState, PageLocalization, PageVersion, ProductPage } from './marketing-state.js';
import type { AppStoreState } from './state.js';

type Req = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>;

export function registerProductPageRoutes(
  state: AppStoreState,
  marketing: MarketingState,
  spec: SpecValidator,
  api: JsonApi,
) {
  const { origin, respond, page } = api;
  const log = (request: FastifyRequest) =>
    marketing.calls.push(`${request.method} ${request.url.split('?')[0]}`);
  const checkBody = bodyChecker(spec);
  const one = answerOne(respond);

  const pageResource = (request: FastifyRequest, p: ProductPage) => ({
    type: 'appCustomProductPages',
    id: p.id,
    attributes: {
      name: p.name,
      url: `https://apps.apple.com/app/id${p.appId}?ppid=${p.id}`,
      visible: p.visible,
    },
    links: { self: `${origin(request)}/v1/appCustomProductPages/${p.id}` },
  });
  const versionResource = (request: FastifyRequest, v: PageVersion) => ({
    type: 'appCustomProductPageVersions',
    id: v.id,
    attributes: { version: v.version, state: v.state, ...(v.deepLink !== null && { deepLink: v.deepLink }) },
    links: { self: `${origin(request)}/v1/appCustomProductPageVersions/${v.id}` },
  });
  const localizationResource = (request: FastifyRequest, l: PageLocalization) => ({
    type: 'appCustomProductPageLocalizations',
    id: l.id,
    attributes: {
      locale: l.locale,
      ...(l.promotionalText !== null && { promotionalText: l.promotionalText }),
    },
    links: { self: `${origin(request)}/v1/appCustomProductPageLocalizations/${l.id}` },
  });

  const requirePage = (id: string) => findOr404(marketing.pages, 'appCustomProductPages', id);
  const requireVersion = (id: string) =>
    findOr404(marketing.pageVersions, 'appCustomProductPageVersions', id);
  const requireLocalization = (id: string) =>
    findOr404(marketing.pageLocalizations, 'appCustomProductPageLocalizations', id);
  /** Checklist 6: a page's texts are written only on an editable version. */
  const assertEditable = (version: PageVersion, attribute: string) => {
    if (!marketing.rules.editablePageVersionStates.includes(version.state)) throw stateError(attribute);
  };

  const onePage = (request: FastifyRequest, reply: FastifyReply, status: number, p: ProductPage) =>
    one(reply, status, 'AppCustomProductPageResponse', pageResource(request, p));
  const oneVersion = (request: FastifyRequest, reply: FastifyReply, status: number, v: PageVersion) =>
    one(reply, status, 'AppCustomProductPageVersionResponse', versionResource(request, v));
  const oneLocalization = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    l: PageLocalization,
  ) => one(reply, status, 'AppCustomProductPageLocalizationResponse', localizationResource(request, l));

  return (scope: FastifyInstance) => {
    scope.get('/apps/:id/appCustomProductPages', async (request: Req, reply) => {
      log(request);
      if (!state.apps.has(request.params.id)) throw notFoundError('apps', request.params.id);
      const visible = request.query['filter[visible]'];
      const items = marketing
        .pagesOf(request.params.id)
        .filter((p) => visible === undefined || String(p.visible) === visible);
      const { slice, links, meta } = page(request, items);
      return respond(reply, 200, 'AppCustomProductPagesResponse', {
        data: slice.map((p) => pageResource(request, p)),
        links,
        meta,
      });
    });

    scope.post('/appCustomProductPages', async (request: Req, reply) => {
      log(request);
      const body = checkBody('AppCustomProductPageCreateRequest', request.body);
      const appId = body.data.relationships!.app!.data.id;
      if (!state.apps.has(appId)) throw notFoundError('apps', appId);
      const name = String(body.data.attributes?.name);
      checkLength('name', name, marketing.rules.limits.pageName);
      if (marketing.pagesOf(appId).length >= marketing.rules.maxPages) {
        throw entityError(
          'ENTITY_ERROR.RELATIONSHIP.INVALID',
          `An app can have at most ${marketing.rules.maxPages} custom product pages.`,
          '/data/relationships/app',
        );
      }
      const created: ProductPage = { id: randomUUID(), appId, name, visible: false };
      marketing.pages.set(created.id, created);
      return onePage(request, reply, 201, created);
    });
    scope.get('/appCustomProductPages/:id', async (request: Req, reply) => {
      log(request);
      return onePage(request, reply, 200, requirePage(request.params.id));
    });
    scope.patch('/appCustomProductPages/:id', async (request: Req, reply) => {
      log(request);
      const found = requirePage(request.params.id);
      const attributes = checkUpdate(checkBody('AppCustomProductPageUpdateRequest', request.body), found.id, [
        'name',
        'visible',
      ]);
      checkLength('name', attributes.name, marketing.rules.limits.pageName);
      if (typeof attributes.name === 'string') found.name = attributes.name;
      if (typeof attributes.visible === 'boolean') found.visible = attributes.visible;
      return onePage(request, reply, 200, found);
    });
    scope.delete('/appCustomProductPages/:id', async (request: Req, reply) => {
      log(request);
      const found = requirePage(request.params.id);
      for (const v of marketing.versionsOf(found.id)) {
        for (const l of marketing.pageLocalizationsOf(v.id)) marketing.pageLocalizations.delete(l.id);
        marketing.pageVersions.delete(v.id);
      }
      marketing.pages.delete(found.id);
      return reply.code(204).send();
    });

    scope.get('/appCustomProductPages/:id/appCustomProductPageVersions', async (request: Req, reply) => {
      log(request);
      requirePage(request.params.id);
      const states = request.query['filter[state]']?.split(',');
      const items = marketing
        .versionsOf(request.params.id)
        .filter((v) => states === undefined || states.includes(v.state));
      const { slice, links, meta } = page(request, items);
      return respond(reply, 200, 'AppCustomProductPageVersionsResponse', {
        data: slice.map((v) => versionResource(request, v)),
        links,
        meta,
      });
    });
    // A new version is a draft that starts with copies of the latest version's texts (unconfirmed).
    scope.post('/appCustomProductPageVersions', async (request: Req, reply) => {
      log(request);
      const body = checkBody('AppCustomProductPageVersionCreateRequest', request.body);
      const found = requirePage(body.data.relationships!.appCustomProductPage!.data.id);
      const existing = marketing.versionsOf(found.id);
      if (marketing.rules.onePageDraft && existing.some((v) => v.state === 'PREPARE_FOR_SUBMISSION')) {
        throw new AscFailure(
          409,
          'STATE_ERROR',
          'The request cannot be fulfilled because of the state of another resource.',
          'This custom product page already has a version in Prepare for Submission.',
        );
      }
      const latest = existing.at(-1);
      const deepLink = body.data.attributes?.deepLink;
      const created: PageVersion = {
        id: randomUUID(),
        pageId: found.id,
        version: String(Number(latest?.version ?? 0) + 1),
        state: 'PREPARE_FOR_SUBMISSION',
        deepLink: typeof deepLink === 'string' ? deepLink : (latest?.deepLink ?? null),
      };
      marketing.pageVersions.set(created.id, created);
      for (const l of latest === undefined ? [] : marketing.pageLocalizationsOf(latest.id)) {
        const id = randomUUID();
        marketing.pageLocalizations.set(id, { ...l, id, versionId: created.id, keywords: [...l.keywords] });
      }
      return oneVersion(request, reply, 201, created);
    });
    scope.get('/appCustomProductPageVersions/:id', async (request: Req, reply) => {
      log(request);
      return oneVersion(request, reply, 200, requireVersion(request.params.id));
    });
    scope.patch('/appCustomProductPageVersions/:id', async (request: Req, reply) => {
      log(request);
      const found = requireVersion(request.params.id);
      const attributes = checkUpdate(
        checkBody('AppCustomProductPageVersionUpdateRequest', request.body),
        found.id,
        ['deepLink'],
      );
      assertEditable(found, 'deepLink');
      found.deepLink = typeof attributes.deepLink === 'string' ? attributes.deepLink : null;
      return oneVersion(request, reply, 200, found);
    });

    scope.get(
      '/appCustomProductPageVersions/:id/appCustomProductPageLocalizations',
      async (request: Req, reply) => {
        log(request);
        requireVersion(request.params.id);
        const locales = request.query['filter[locale]']?.split(',');
        const items = marketing
          .pageLocalizationsOf(request.params.id)
          .filter((l) => locales === undefined || locales.includes(l.locale));
        const { slice, links, meta } = page(request, items);
        return respond(reply, 200, 'AppCustomProductPageLocalizationsResponse', {
          data: slice.map((l) => localizationResource(request, l)),
          links,
          meta,
        });
      },
    );
    scope.post('/appCustomProductPageLocalizations', async (request: Req, reply) => {
      log(request);
      const body = checkBody('AppCustomProductPageLocalizationCreateRequest', request.body);
      const version = requireVersion(body.data.relationships!.appCustomProductPageVersion!.data.id);
      const locale = String(body.data.attributes?.locale);
      checkLocale(locale);
      assertEditable(version, 'locale');
      const text = body.data.attributes?.promotionalText;
      checkLength('promotionalText', text, marketing.rules.limits.promotionalText);
      if (marketing.pageLocalizationsOf(version.id).some((l) => l.locale === locale))
        throw duplicateLocale(locale);
      const created: PageLocalization = {
        id: randomUUID(),
        versionId: version.id,
        locale,
        promotionalText: typeof text === 'string' ? text : null,
        keywords: [],
      };
      marketing.pageLocalizations.set(created.id, created);
      return oneLocalization(request, reply, 201, created);
    });
    // The app's keywords: those of its live version, each its own id (stores-more.md §B1, unconfirmed).
    const appKeywords = (appId: string, locale?: string) => {
      const live = [...state.versions.values()].filter(
        (v) => v.appId === appId && v.appVersionState === 'READY_FOR_DISTRIBUTION',
      );
      const words = live.flatMap((v) =>
        [...state.versionLocs.values()]
          .filter((l) => l.parentId === v.id && (locale === undefined || l.locale === locale))
          .flatMap((l) => (l.attributes.keywords ?? '').split(',')),
      );
      return [...new Set(words.map((w) => w.trim()).filter((w) => w !== ''))];
    };
    const keywordList = (request: Req, reply: FastifyReply, schema: string, ids: string[]) => {
      const { slice, links, meta } = page(request, ids);
      return respond(reply, 200, schema, {
        data: slice.map((id) => ({ type: 'appKeywords', id })),
        links,
        meta,
      });
    };
    scope.get('/apps/:id/searchKeywords', async (request: Req, reply) => {
      log(request);
      if (!state.apps.has(request.params.id)) throw notFoundError('apps', request.params.id);
      return keywordList(
        request,
        reply,
        'AppKeywordsResponse',
        appKeywords(request.params.id, request.query['filter[locale]']),
      );
    });
    const appOfLocalization = (l: PageLocalization) =>
      marketing.pages.get(marketing.pageVersions.get(l.versionId)!.pageId)!.appId;
    scope.get('/appCustomProductPageLocalizations/:id/searchKeywords', async (request: Req, reply) => {
      log(request);
      return keywordList(
        request,
        reply,
        'AppKeywordsResponse',
        requireLocalization(request.params.id).keywords,
      );
    });
    scope.get(
      '/appCustomProductPageLocalizations/:id/relationships/searchKeywords',
      async (request: Req, reply) => {
        log(request);
        const found = requireLocalization(request.params.id);
        return keywordList(
          request,
          reply,
          'AppCustomProductPageLocalizationSearchKeywordsLinkagesResponse',
          found.keywords,
        );
      },
    );
    // Linking a keyword the app does not have is refused; unlinking one not linked changes nothing.
    const linkage = (add: boolean) => async (request: Req, reply: FastifyReply) => {
      log(request);
      const found = requireLocalization(request.params.id);
      const body = checkBody(
        'AppCustomProductPageLocalizationSearchKeywordsLinkagesRequest',
        request.body,
      ) as unknown as {
        data: { id: string }[];
      };
      assertEditable(requireVersion(found.versionId), 'searchKeywords');
      const ids = body.data.map((d) => d.id);
      if (add) {
        const known = new Set(appKeywords(appOfLocalization(found)));
        const unknown = ids.find((id) => !known.has(id));
        if (unknown !== undefined) {
          throw entityError(
            'ENTITY_ERROR.RELATIONSHIP.INVALID',
            `The keyword '${unknown}' is not one of the app's keywords.`,
            '/data',
          );
        }
        found.keywords = [...new Set([...found.keywords, ...ids])];
      } else found.keywords = found.keywords.filter((k) => !ids.includes(k));
      return reply.code(204).send();
    };
    scope.post('/appCustomProductPageLocalizations/:id/relationships/searchKeywords', linkage(true));
    scope.delete('/appCustomProductPageLocalizations/:id/relationships/searchKeywords', linkage(false));

    scope.get('/appCustomProductPageLocalizations/:id', async (request: Req, reply) => {
      log(request);
      return oneLocalization(request, reply, 200, requireLocalization(request.params.id));
    });
    scope.patch('/appCustomProductPageLocalizations/:id', async (request: Req, reply) => {
      log(request);
      const found = requireLocalization(request.params.id);
      const attributes = checkUpdate(
        checkBody('AppCustomProductPageLocalizationUpdateRequest', request.body),
        found.id,
        ['promotionalText'],
      );
      assertEditable(requireVersion(found.versionId), 'promotionalText');
      checkLength('promotionalText', attributes.promotionalText, marketing.rules.limits.promotionalText);
      found.promotionalText =
        typeof attributes.promotionalText === 'string' ? attributes.promotionalText : null;
      return oneLocalization(request, reply, 200, found);
    });
    scope.delete('/appCustomProductPageLocalizations/:id', async (request: Req, reply) => {
      log(request);
      const found = requireLocalization(request.params.id);
      assertEditable(requireVersion(found.versionId), 'locale');
      marketing.pageLocalizations.delete(found.id);
      return reply.code(204).send();
    });
  };
}
