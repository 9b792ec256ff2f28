/**
 * Custom product pages and in-app events on App Store Connect (stores-more.md §B): read each page
 * with its newest version's localizations and each event with its localizations; write changed
 * texts per locale. A page's texts are written on its draft version — the newest when it is one,
 * else a new one (which starts with copies of the texts in force) unless a version is in review.
 */
import {
  StoreError,
  type FieldValues,
  type LocaleFailure,
  type MarketingChange,
  type MarketingResult,
  type ProductWriteOptions,
  type StoreAppEvent,
  type StoreProductPage,
} from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import type { JsonApiResource } from './mapper.js';

/** A page version whose texts may be written (stores-more.md §B1: the draft). */
export const PAGE_DRAFT_STATES = ['PREPARE_FOR_SUBMISSION'];
/** Page versions under review: no new version is opened beside them. */
const PAGE_REVIEW_STATES = ['READY_FOR_REVIEW', 'WAITING_FOR_REVIEW', 'IN_REVIEW'];
/** Event states whose texts may be written (stores-more.md §B2; unconfirmed beyond the draft). */
export const EVENT_EDITABLE_STATES = ['DRAFT', 'READY_FOR_REVIEW', 'REJECTED'];
const EVENT_TEXTS = ['name', 'shortDescription', 'longDescription'];

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const texts = (resources: JsonApiResource[], names: string[]): Map<string, FieldValues> =>
  new Map(
    resources.map((l) => [
      text(l.attributes?.locale) ?? '',
      Object.fromEntries(names.map((name) => [name, text(l.attributes?.[name])])),
    ]),
  );

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
              : texts(await pageLocalizations(counter, version.id), ['promotionalText']),
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
          texts: texts(await eventLocalizations(counter, event.id), EVENT_TEXTS),
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

  /** One locale: PATCH what differs from the store now, or POST the localization it lacks. */
  async function writeLocale(
    counter: Counter,
    type: 'appCustomProductPageLocalizations' | 'appEventLocalizations',
    parent: { relationship: string; type: string; id: string },
    existing: JsonApiResource[],
    locale: string,
    fields: FieldValues,
    options: ProductWriteOptions,
  ) {
    const found = existing.find(
      (l) => (text(l.attributes?.locale) ?? '').toLowerCase() === locale.toLowerCase(),
    );
    if (found !== undefined) {
      const differing = Object.fromEntries(
        Object.entries(fields).filter(
          ([name, value]) => (text(found.attributes?.[name]) || null) !== (value || null),
        ),
      );
      if (Object.keys(differing).length === 0) return;
      await options.beforeWrite?.();
      await client.call(counter, 'PATCH', `/v1/${type}/${found.id}`, {
        data: { type, id: found.id, attributes: differing },
      });
      return;
    }
    await options.beforeWrite?.();
    await client.call(counter, 'POST', `/v1/${type}`, {
      data: {
        type,
        attributes: {
          locale,
          ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)),
        },
        relationships: { [parent.relationship]: { data: { type: parent.type, id: parent.id } } },
      },
    });
  }

  const failureOf = (locale: string, error: unknown): LocaleFailure => {
    if (!(error instanceof StoreError)) throw error;
    return { locale, field: error.field, error: { code: error.code, message: error.message } };
  };

  async function writeOne(
    counter: Counter,
    change: MarketingChange,
    options: ProductWriteOptions,
  ): Promise<MarketingResult> {
    const locales = Object.keys(change.locales);
    const result: MarketingResult = { kind: change.kind, id: change.id, written: [], failures: [] };
    let target: {
      type: 'appCustomProductPageLocalizations' | 'appEventLocalizations';
      parent: { relationship: string; type: string; id: string };
      existing: JsonApiResource[];
    };
    try {
      if (change.kind === 'productPage') {
        const draft = await draftOf(counter, change.id);
        target = {
          type: 'appCustomProductPageLocalizations',
          parent: {
            relationship: 'appCustomProductPageVersion',
            type: 'appCustomProductPageVersions',
            id: draft.id,
          },
          existing: draft.localizations,
        };
      } else {
        target = {
          type: 'appEventLocalizations',
          parent: { relationship: 'appEvent', type: 'appEvents', id: change.id },
          existing: await eventLocalizations(counter, change.id),
        };
      }
    } catch (error) {
      result.failures = locales.map((locale) => failureOf(locale, error));
      return result;
    }
    for (const locale of locales) {
      try {
        await writeLocale(
          counter,
          target.type,
          target.parent,
          target.existing,
          locale,
          change.locales[locale]!,
          options,
        );
        result.written.push(locale);
      } catch (error) {
        if (error instanceof StoreError && error.code === 'CANCELLED') throw error;
        result.failures.push(failureOf(locale, error));
      }
    }
    return result;
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
