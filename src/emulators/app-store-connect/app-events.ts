/**
 * In-app events in the App Store emulator (stores-more.md §B2, checklist 1–6, 12, 13): events of
 * an app and their localizations, with Apple's rules — bodies against the spec, locale codes,
 * duplicates, attributes a PATCH may not carry, the text limits (30/50/120), the event states that
 * refuse text edits, and the schedule bounds — the unconfirmed ones as settings.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { notFoundError, stateError } from './errors.js';
import type { JsonApi } from './json-api.js';
import type { AppEvent, EventLocalization, MarketingState, TerritorySchedule } from './marketing-state.js';
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
import type { AppStoreState } from './state.js';

type Req = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>;

const TEXTS = ['name', 'shortDescription', 'longDescription'] as const;
const EVENT_ATTRIBUTES = [
  'referenceName',
  'badge',
  'deepLink',
  'purchaseRequirement',
  'primaryLocale',
  'priority',
  'purpose',
  'territorySchedules',
];

export function registerAppEventRoutes(
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

  /** Checklist 12: an event lasts 15 minutes to 31 days, published at most 14 days before it starts. */
  const checkSchedules = (schedules: unknown) => {
    const { minMinutes, maxDays, publishLeadDays } = marketing.rules.schedule;
    for (const [index, schedule] of ((schedules ?? []) as TerritorySchedule[]).entries()) {
      const pointer = `/data/attributes/territorySchedules/${index}`;
      const start = Date.parse(schedule.eventStart ?? '');
      const end = Date.parse(schedule.eventEnd ?? '');
      const publish = Date.parse(schedule.publishStart ?? schedule.eventStart ?? '');
      const invalid = (detail: string) => entityError('ENTITY_ERROR.ATTRIBUTE.INVALID', detail, pointer);
      if (Number.isNaN(start) || Number.isNaN(end)) throw invalid('An event needs its start and end.');
      if (end <= start) throw invalid('The event must end after it starts.');
      if (end - start < minMinutes * 60_000) throw invalid(`An event lasts at least ${minMinutes} minutes.`);
      if (end - start > maxDays * 86_400_000) throw invalid(`An event lasts at most ${maxDays} days.`);
      if (publish > start) throw invalid('An event is published before it starts.');
      if (start - publish > publishLeadDays * 86_400_000)
        throw invalid(`An event is published at most ${publishLeadDays} days before it starts.`);
    }
  };

  const eventResource = (request: FastifyRequest, e: AppEvent) => ({
    type: 'appEvents',
    id: e.id,
    attributes: Object.fromEntries(
      Object.entries({
        referenceName: e.referenceName,
        badge: e.badge,
        eventState: e.eventState,
        deepLink: e.deepLink,
        purchaseRequirement: e.purchaseRequirement,
        primaryLocale: e.primaryLocale,
        priority: e.priority,
        purpose: e.purpose,
        territorySchedules: e.territorySchedules,
      }).filter(([, v]) => v !== null),
    ),
    links: { self: `${origin(request)}/v1/appEvents/${e.id}` },
  });
  const localizationResource = (request: FastifyRequest, l: EventLocalization) => ({
    type: 'appEventLocalizations',
    id: l.id,
    attributes: {
      locale: l.locale,
      ...Object.fromEntries(Object.entries(l.texts).filter(([, v]) => v !== null)),
    },
    links: { self: `${origin(request)}/v1/appEventLocalizations/${l.id}` },
  });

  const requireEvent = (id: string) => findOr404(marketing.events, 'appEvents', id);
  const requireLocalization = (id: string) =>
    findOr404(marketing.eventLocalizations, 'appEventLocalizations', id);
  /** Checklist 6: texts are refused while in review, once published, past or archived. */
  const assertEditable = (event: AppEvent, attribute: string) => {
    if (!marketing.rules.editableEventStates.includes(event.eventState)) throw stateError(attribute);
  };
  const checkTexts = (attributes: Record<string, unknown>) => {
    for (const name of TEXTS) checkLength(name, attributes[name], marketing.rules.limits[name]);
  };

  const oneEvent = (request: FastifyRequest, reply: FastifyReply, status: number, e: AppEvent) =>
    one(reply, status, 'AppEventResponse', eventResource(request, e));
  const oneLocalization = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    l: EventLocalization,
  ) => one(reply, status, 'AppEventLocalizationResponse', localizationResource(request, l));

  return (scope: FastifyInstance) => {
    scope.get('/apps/:id/appEvents', async (request: Req, reply) => {
      log(request);
      if (!state.apps.has(request.params.id)) throw notFoundError('apps', request.params.id);
      const states = request.query['filter[eventState]']?.split(',');
      const items = marketing
        .eventsOf(request.params.id)
        .filter((e) => states === undefined || states.includes(e.eventState));
      const { slice, links, meta } = page(request, items);
      return respond(reply, 200, 'AppEventsResponse', {
        data: slice.map((e) => eventResource(request, e)),
        links,
        meta,
      });
    });
    scope.post('/appEvents', async (request: Req, reply) => {
      log(request);
      const body = checkBody('AppEventCreateRequest', request.body);
      const appId = body.data.relationships!.app!.data.id;
      if (!state.apps.has(appId)) throw notFoundError('apps', appId);
      const a = body.data.attributes ?? {};
      checkLength('referenceName', a.referenceName, marketing.rules.limits.referenceName);
      checkSchedules(a.territorySchedules);
      const text = (v: unknown) => (typeof v === 'string' ? v : null);
      const created: AppEvent = {
        id: randomUUID(),
        appId,
        referenceName: String(a.referenceName),
        badge: text(a.badge),
        eventState: 'DRAFT',
        deepLink: text(a.deepLink),
        purchaseRequirement: text(a.purchaseRequirement),
        primaryLocale: text(a.primaryLocale),
        priority: text(a.priority),
        purpose: text(a.purpose),
        territorySchedules: (a.territorySchedules as TerritorySchedule[] | undefined) ?? [],
      };
      marketing.events.set(created.id, created);
      return oneEvent(request, reply, 201, created);
    });
    scope.get('/appEvents/:id', async (request: Req, reply) => {
      log(request);
      return oneEvent(request, reply, 200, requireEvent(request.params.id));
    });
    scope.patch('/appEvents/:id', async (request: Req, reply) => {
      log(request);
      const found = requireEvent(request.params.id);
      const attributes = checkUpdate(
        checkBody('AppEventUpdateRequest', request.body),
        found.id,
        EVENT_ATTRIBUTES,
      );
      assertEditable(found, Object.keys(attributes)[0] ?? 'referenceName');
      checkLength('referenceName', attributes.referenceName, marketing.rules.limits.referenceName);
      if (attributes.territorySchedules !== undefined) checkSchedules(attributes.territorySchedules);
      for (const [name, value] of Object.entries(attributes))
        (found as unknown as Record<string, unknown>)[name] = value;
      return oneEvent(request, reply, 200, found);
    });
    scope.delete('/appEvents/:id', async (request: Req, reply) => {
      log(request);
      const found = requireEvent(request.params.id);
      for (const l of marketing.eventLocalizationsOf(found.id)) marketing.eventLocalizations.delete(l.id);
      marketing.events.delete(found.id);
      return reply.code(204).send();
    });

    // No filter[locale] on this list (§D): clients filter themselves.
    scope.get('/appEvents/:id/localizations', async (request: Req, reply) => {
      log(request);
      requireEvent(request.params.id);
      const { slice, links, meta } = page(request, marketing.eventLocalizationsOf(request.params.id));
      return respond(reply, 200, 'AppEventLocalizationsResponse', {
        data: slice.map((l) => localizationResource(request, l)),
        links,
        meta,
      });
    });
    scope.post('/appEventLocalizations', async (request: Req, reply) => {
      log(request);
      const body = checkBody('AppEventLocalizationCreateRequest', request.body);
      const event = requireEvent(body.data.relationships!.appEvent!.data.id);
      const attributes = body.data.attributes ?? {};
      const locale = String(attributes.locale);
      checkLocale(locale);
      assertEditable(event, 'locale');
      checkTexts(attributes);
      if (marketing.eventLocalizationsOf(event.id).some((l) => l.locale === locale))
        throw duplicateLocale(locale);
      const text = (name: string) => (typeof attributes[name] === 'string' ? attributes[name] : null);
      const created: EventLocalization = {
        id: randomUUID(),
        eventId: event.id,
        locale,
        texts: {
          name: text('name'),
          shortDescription: text('shortDescription'),
          longDescription: text('longDescription'),
        },
      };
      marketing.eventLocalizations.set(created.id, created);
      return oneLocalization(request, reply, 201, created);
    });
    scope.get('/appEventLocalizations/:id', async (request: Req, reply) => {
      log(request);
      return oneLocalization(request, reply, 200, requireLocalization(request.params.id));
    });
    scope.patch('/appEventLocalizations/:id', async (request: Req, reply) => {
      log(request);
      const found = requireLocalization(request.params.id);
      const attributes = checkUpdate(checkBody('AppEventLocalizationUpdateRequest', request.body), found.id, [
        ...TEXTS,
      ]);
      assertEditable(requireEvent(found.eventId), Object.keys(attributes)[0] ?? 'name');
      checkTexts(attributes);
      for (const name of TEXTS) {
        if (Object.hasOwn(attributes, name))
          found.texts[name] = typeof attributes[name] === 'string' ? attributes[name] : null;
      }
      return oneLocalization(request, reply, 200, found);
    });
    scope.delete('/appEventLocalizations/:id', async (request: Req, reply) => {
      log(request);
      const found = requireLocalization(request.params.id);
      assertEditable(requireEvent(found.eventId), 'locale');
      marketing.eventLocalizations.delete(found.id);
      return reply.code(204).send();
    });
  };
}
