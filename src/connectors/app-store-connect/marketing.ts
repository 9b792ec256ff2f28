/**
 * Custom product pages and in-app events on App Store Connect (stores-more.md §B), as store items
 * beside the purchases: each page with its newest version's localizations and their screenshot
 * and preview sets, each event with its localizations. A page's texts are written on its draft
 * version — the newest when it is one, else a new one (which starts with copies of the texts in
 * force) unless a version is in review — then its changed media slots, locale by locale.
 */
import {
  StoreError,
  type MediaSlotResult,
  type ProductChange,
  type ProductResult,
  type ProductWriteOptions,
  type StoreProduct,
} from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import type { JsonApiResource } from './mapper.js';
import { slotRefused, type AscMedia } from './media.js';
import { text, textsByLocale, writeLocales, type LocalizationTarget } from './localization-writes.js';

/** A page version whose texts may be written (stores-more.md §B1: the draft). */
export const PAGE_DRAFT_STATES = ['PREPARE_FOR_SUBMISSION'];
/** Page versions under review: no new version is opened beside them. */
const PAGE_REVIEW_STATES = ['READY_FOR_REVIEW', 'WAITING_FOR_REVIEW', 'IN_REVIEW'];
/** Event states whose texts may be written (stores-more.md §B2; unconfirmed beyond the draft). */
export const EVENT_EDITABLE_STATES = ['DRAFT', 'READY_FOR_REVIEW', 'REJECTED'];
const EVENT_TEXTS = ['name', 'shortDescription', 'longDescription'];

export const isMarketingChange = (change: { kind: string }) =>
  change.kind === 'customProductPage' || change.kind === 'appEvent';

const pageLocked = (state: string) =>
  PAGE_REVIEW_STATES.includes(state)
    ? `The custom product page's version is ${state}: its texts change once the review is over`
    : null;

const eventLocked = (state: string) =>
  EVENT_EDITABLE_STATES.includes(state)
    ? null
    : `The in-app event is ${state}: App Store Connect takes changes to its texts only while it is ${EVENT_EDITABLE_STATES.join(', ')}`;

export function createAscMarketing(client: AscClient, media: AscMedia) {
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

  async function readPages(counter: Counter, appId: string): Promise<StoreProduct[]> {
    const pages = await client.all(
      counter,
      `/v1/apps/${encodeURIComponent(appId)}/appCustomProductPages?limit=200`,
    );
    return Promise.all(
      pages.map(async (page): Promise<StoreProduct> => {
        const version = await newestVersion(counter, page.id);
        const state = text(version?.attributes?.state);
        const localizations = version === null ? [] : await pageLocalizations(counter, version.id);
        const byLocale = new Map(localizations.map((l) => [text(l.attributes?.locale) ?? '', l]));
        return {
          kind: 'customProductPage',
          productId: page.id,
          referenceName: text(page.attributes?.name),
          state,
          storeRef: version?.id ?? null,
          details: {
            visible: page.attributes?.visible === true,
            url: text(page.attributes?.url),
            version:
              version === null
                ? null
                : {
                    version: text(version.attributes?.version),
                    state,
                    deepLink: text(version.attributes?.deepLink),
                  },
          },
          locked: pageLocked(state ?? ''),
          texts: textsByLocale(localizations, ['promotionalText']),
          media: await media.read(counter, byLocale, 'appCustomProductPageLocalizations'),
        };
      }),
    );
  }

  async function readEvents(counter: Counter, appId: string): Promise<StoreProduct[]> {
    const events = await client.all(counter, `/v1/apps/${encodeURIComponent(appId)}/appEvents?limit=200`);
    return Promise.all(
      events.map(async (event): Promise<StoreProduct> => {
        const a = event.attributes ?? {};
        const state = text(a.eventState) ?? '';
        const schedules = Array.isArray(a.territorySchedules)
          ? (a.territorySchedules as Record<string, unknown>[])
          : [];
        return {
          kind: 'appEvent',
          productId: event.id,
          referenceName: text(a.referenceName),
          state,
          storeRef: null,
          details: {
            badge: text(a.badge),
            purpose: text(a.purpose),
            priority: text(a.priority),
            primaryLocale: text(a.primaryLocale),
            schedules: schedules.map((s) => ({
              territories: Array.isArray(s.territories) ? s.territories.map(String) : [],
              publishStart: text(s.publishStart),
              eventStart: text(s.eventStart),
              eventEnd: text(s.eventEnd),
            })),
          },
          locked: eventLocked(state),
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

  /** One page (on its draft version, texts then media) or event: each locale on its own. */
  async function writeOne(
    counter: Counter,
    change: ProductChange,
    options: ProductWriteOptions,
  ): Promise<ProductResult> {
    const where = async (): Promise<LocalizationTarget> => {
      if (change.kind === 'customProductPage') {
        const draft = await draftOf(counter, change.productId);
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
        relationship: { appEvent: { data: { type: 'appEvents', id: change.productId } } },
        existing: await eventLocalizations(counter, change.productId),
      };
    };
    // A locale with media changes only still needs its localization (found, or made without text).
    const slots = change.media ?? [];
    const locales = { ...change.locales };
    for (const slot of slots) locales[slot.locale] ??= {};
    const outcome = await writeLocales(client, counter, where, locales, options.beforeWrite);
    const mediaResults: MediaSlotResult[] = [];
    for (const slot of slots) {
      const localizationId = outcome.ids.get(slot.locale);
      if (localizationId === undefined) continue; // the locale's failure says why
      await options.beforeWrite?.();
      try {
        const { bytes: _bytes, ...result } = await media.writeSlot(
          counter,
          { type: 'appCustomProductPageLocalizations', id: localizationId },
          slot,
          undefined,
        );
        mediaResults.push(result);
      } catch (error) {
        if (!(error instanceof StoreError) || error.code === 'CANCELLED') throw error;
        mediaResults.push(slotRefused(slot, error.code, error.message));
      }
    }
    const textLocales = new Set(Object.keys(change.locales));
    return {
      productId: change.productId,
      written: outcome.written.filter((locale) => textLocales.has(locale)),
      failures: outcome.failures,
      ...(slots.length > 0 && { media: mediaResults }),
    };
  }

  return {
    async read(counter: Counter, appId: string): Promise<StoreProduct[]> {
      const [pages, events] = await Promise.all([readPages(counter, appId), readEvents(counter, appId)]);
      return [...pages, ...events];
    },
    writeOne,
  };
}
