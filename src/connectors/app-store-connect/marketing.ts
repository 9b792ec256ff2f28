/**
 * Custom product pages and in-app events on App Store Connect (stores-more.md §B): read each page
 * with its newest version's localizations and each event with its localizations; write changed
 * texts per locale. A page's texts are written on its draft version — the newest when it is one,
 * else a new one (which starts with copies of the texts in force) unless a version is in review.
 */
import {
  StoreError,
  type MarketingChange,
  type MarketingResult,
  type ProductWriteOptions,
  type StoreAppEvent,
  type StoreProductPage,
} from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import type { JsonApiResource } from './mapper.js';
import { text, textsByLocale, writeLocales, type LocalizationTarget } from './localization-writes.js';

/** A page version whose texts may be written (stores-more.md §B1: the draft). */
export const PAGE_DRAFT_STATES = ['PREPARE_FOR_SUBMISSION'];
/** Page versions under review: no new version is opened beside them. */
const PAGE_REVIEW_STATES = ['READY_FOR_REVIEW', 'WAITING_FOR_REVIEW', 'IN_REVIEW'];
/** Event states whose texts may be written (stores-more.md §B2; unconfirmed beyond the draft). */
export const EVENT_EDITABLE_STATES = ['DRAFT', 'READY_FOR_REVIEW', 'REJECTED'];
const EVENT_TEXTS = ['name', 'shortDescription', 'longDescription'];

export function createAscMarketing(client: AscClient) {
  const newestVersion = async (counter: Counter, pageId: string) => {
    const versions = await client.all(
      counter,
      `/v1/appCustomProductPages/${encodeURIComponent(pageId)}/appCustomProductPageVersions?limit=200`,
    );
    return versions.reduce<JsonApiResource | null>(
      (newest, v) =>
        newest === null || Number(v.attributes?.version ?? 0) > Number(newest.attributes?.version ?? 0)
          ? v
          : newest,
      null,
    );
  };
  const pageLocalizations = (counter: Counter, versionId: string) =>
    client.all(
      counter,
      `/v1/appCustomProductPageVersions/${versionId}/appCustomProductPageLocalizations?limit=200`,
    );
  const eventLocalizations = (counter: Counter, eventId: string) =>
    client.all(counter, `/v1/appEvents/${encodeURIComponent(eventId)}/localizations?limit=200`);

  async function readPages(counter: Counter, appId: string): Promise<StoreProductPage[]> {
    const pages = await client.all(
      counter,
      `/v1/apps/${encodeURIComponent(appId)}/appCustomProductPages?limit=200`,
    );
    return Promise.all(
      pages.map(async (page) => {
        const version = await newestVersion(counter, page.id);
        const state = text(version?.attributes?.state) ?? '';
        return {
          pageId: page.id,
          name: text(page.attributes?.name) ?? '',
          visible: page.attributes?.visible === true,
          url: text(page.attributes?.url),
          version:
            version === null
              ? null
              : {
                  id: version.id,
                  version: text(version.attributes?.version) ?? '',
                  state,
                  editable: PAGE_DRAFT_STATES.includes(state),
                  deepLink: text(version.attributes?.deepLink),
                },
          texts:
            version === null
              ? new Map()
              : textsByLocale(await pageLocalizations(counter, version.id), ['promotionalText']),
        };
      }),
    );
  }

  async function readEvents(counter: Counter, appId: string): Promise<StoreAppEvent[]> {
    const events = await client.all(counter, `/v1/apps/${encodeURIComponent(appId)}/appEvents?limit=200`);
    return Promise.all(
      events.map(async (event) => {
        const a = event.attributes ?? {};
        const state = text(a.eventState) ?? '';
        const schedules = Array.isArray(a.territorySchedules)
          ? (a.territorySchedules as Record<string, unknown>[])
          : [];
        return {
          eventId: event.id,
          referenceName: text(a.referenceName) ?? '',
          badge: text(a.badge),
          state,
          purpose: text(a.purpose),
          priority: text(a.priority),
          primaryLocale: text(a.primaryLocale),
          schedules: schedules.map((s) => ({
            territories: Array.isArray(s.territories) ? s.territories.map(String) : [],
            publishStart: text(s.publishStart),
            eventStart: text(s.eventStart),
            eventEnd: text(s.eventEnd),
          })),
          editable: EVENT_EDITABLE_STATES.includes(state),
          texts: textsByLocale(await eventLocalizations(counter, event.id), EVENT_TEXTS),
        };
      }),
    );
  }

  /** The page version to write into, with its localizations; a new draft when the newest is not one. */
  async function draftOf(counter: Counter, pageId: string) {
    const newest = await newestVersion(counter, pageId);
    const state = text(newest?.attributes?.state) ?? '';
    if (newest !== null && PAGE_DRAFT_STATES.includes(state)) {
      return { id: newest.id, localizations: await pageLocalizations(counter, newest.id) };
    }
    if (PAGE_REVIEW_STATES.includes(state)) {
      throw new StoreError(
        'appstore',
        'NOT_EDITABLE',
        `The custom product page's version is ${state}: its texts change once the review is over`,
        409,
        false,
      );
    }
    const created = await client.call(counter, 'POST', '/v1/appCustomProductPageVersions', {
      data: {
        type: 'appCustomProductPageVersions',
        relationships: { appCustomProductPage: { data: { type: 'appCustomProductPages', id: pageId } } },
      },
    });
    const id = (created.data as JsonApiResource).id;
    return { id, localizations: await pageLocalizations(counter, id) };
  }

  /** One page (on its draft version) or event: each locale on its own. */
  async function writeOne(
    counter: Counter,
    change: MarketingChange,
    options: ProductWriteOptions,
  ): Promise<MarketingResult> {
    const where = async (): Promise<LocalizationTarget> => {
      if (change.kind === 'productPage') {
        const draft = await draftOf(counter, change.id);
        return {
          path: '/v1/appCustomProductPageLocalizations',
          type: 'appCustomProductPageLocalizations',
          relationship: {
            appCustomProductPageVersion: { data: { type: 'appCustomProductPageVersions', id: draft.id } },
          },
          existing: draft.localizations,
        };
      }
      return {
        path: '/v1/appEventLocalizations',
        type: 'appEventLocalizations',
        relationship: { appEvent: { data: { type: 'appEvents', id: change.id } } },
        existing: await eventLocalizations(counter, change.id),
      };
    };
    const outcome = await writeLocales(client, counter, where, change.locales, options.beforeWrite);
    return { kind: change.kind, id: change.id, ...outcome };
  }

  return {
    async read(counter: Counter, appId: string) {
      const [pages, events] = await Promise.all([readPages(counter, appId), readEvents(counter, appId)]);
      return { pages, events };
    },
    write: (counter: Counter, changes: MarketingChange[], options: ProductWriteOptions) =>
      Promise.all(changes.map((change) => writeOne(counter, change, options))),
  };
}
