/**
 * App Store custom product pages and in-app events as people read and edit them (design.md §18):
 * views over the store items engine (the pages' and events' texts are product texts of their own
 * kinds, synced, merged, diffed, approved and pushed with the products), with what the store says
 * of each read-only and why it refuses changes now. A page's screenshots are media slots of the
 * page; the default page's texts and media are copied into a page in one step.
 */
import type { Executor } from '../../db/database.js';
import { invalidField, notFound } from '../../errors.js';
import { productFieldNames, productRuleOf, type ProductLimits } from '../../shared/product-fields.js';
import { isStoreLocale, unknownLocaleMessage } from '../../shared/stores.js';
import {
  authorize,
  coversLocales,
  requireLocalesInScope,
  type RequestContext,
  type RoleOperation,
} from '../access/index.js';
import { fieldState, listingsWithFields } from '../listings/index.js';
import type { AuditLog } from '../audit/index.js';
import type { ProjectsService } from '../projects/index.js';
import type { ProductWriter } from './product-writer.js';
import { productsRepository as repo, type ProductRow, type TextRow } from './products.repository.js';

type Kind = 'customProductPage' | 'appEvent';

/** The media library's part in pages: first screenshots for a preview, and copies of the default page's slots. */
export interface PageMediaPort {
  previews(
    projectId: string,
  ): Promise<Map<string, { locale: string; slotType: string; thumbnails: string[] }>>;
  copyDefault(
    ctx: RequestContext,
    projectId: string,
    input: { locale: string; pageId: string },
  ): Promise<{ slots: number; items: number }>;
}

export interface MarketingServiceDeps {
  db: Executor;
  audit: Pick<AuditLog, 'record'>;
  projects: Pick<ProjectsService, 'require'>;
  limits: ProductLimits;
  writer: ProductWriter;
  media: PageMediaPort;
}

const OPERATIONS: Record<Kind, { list: RoleOperation; get: RoleOperation; update: RoleOperation }> = {
  customProductPage: {
    list: 'productPages.list',
    get: 'productPages.get',
    update: 'productPages.update',
  },
  appEvent: { list: 'appEvents.list', get: 'appEvents.get', update: 'appEvents.update' },
};

const LABEL: Record<Kind, string> = { customProductPage: 'Custom product page', appEvent: 'In-app event' };

interface EventSchedule {
  territories: string[];
  publishStart: string | null;
  eventStart: string | null;
  eventEnd: string | null;
}

interface FieldView {
  value: string | null;
  base: string | null;
  state: 'unchanged' | 'modified' | 'conflict';
  storeValue?: string | null;
  limit: number;
}

const parseDetails = (row: ProductRow): Record<string, unknown> =>
  row.details === null ? {} : (JSON.parse(row.details) as Record<string, unknown>);

export function createMarketingService({ db, audit, projects, limits, writer, media }: MarketingServiceDeps) {
  async function itemsOf(projectId: string, kind: Kind) {
    const [rows, texts] = await Promise.all([
      repo.products(db, projectId, 'appstore'),
      repo.texts(db, projectId, { store: 'appstore' }),
    ]);
    const items = rows.filter((row) => row.kind === kind);
    return items.map((row) => ({
      row,
      texts: texts.filter((t) => t.product_id === row.product_id),
    }));
  }

  /** What every view of an item says: its texts per locale, their states, and whether it is editable. */
  function summary(row: ProductRow, texts: TextRow[]) {
    const locales: Record<string, Record<string, string | null>> = {};
    const states: Record<string, 'unchanged' | 'modified' | 'conflict'> = {};
    for (const text of texts) {
      (locales[text.locale] ??= {})[text.field] = text.value;
      const state = fieldState(text);
      if (state === 'conflict' || (state === 'modified' && states[text.locale] !== 'conflict'))
        states[text.locale] = state;
      else states[text.locale] ??= 'unchanged';
    }
    return {
      state: row.state,
      editable: row.locked === null,
      reason: row.locked,
      locales,
      states,
      pending: texts.filter((t) => fieldState(t) !== 'unchanged').length,
      readAt: row.read_at,
    };
  }

  async function requireItem(projectId: string, kind: Kind, id: string): Promise<ProductRow> {
    const row = await repo.product(db, projectId, 'appstore', id);
    if (row === undefined || row.kind !== kind) throw notFound(`${LABEL[kind]} ${id}`);
    return row;
  }

  /** One item's texts in one locale, field by field, with their limits. */
  async function localeView(projectId: string, row: ProductRow, locale: string) {
    const kind = row.kind as Kind;
    const texts = await repo.texts(db, projectId, { store: 'appstore', productId: row.product_id, locale });
    const fields: Record<string, FieldView> = {};
    for (const field of productFieldNames(limits, 'appstore', kind)) {
      const text = texts.find((t) => t.field === field);
      fields[field] = {
        value: text?.value ?? null,
        base: text?.base ?? null,
        state: text === undefined ? 'unchanged' : fieldState(text),
        ...(text?.in_conflict === 1 && { storeValue: text.conflict_value }),
        limit: productRuleOf(limits, 'appstore', kind, field)!.max,
      };
    }
    return {
      locale,
      state: row.state,
      editable: row.locked === null,
      reason: row.locked,
      fields,
    };
  }

  async function get(ctx: RequestContext, projectId: string, kind: Kind, id: string, locale: string) {
    authorize(ctx, OPERATIONS[kind].get);
    await projects.require(ctx, projectId);
    if (!isStoreLocale('appstore', locale))
      throw invalidField('locale', unknownLocaleMessage('appstore', locale));
    return localeView(projectId, await requireItem(projectId, kind, id), locale);
  }

  /** Edits an item's texts in one locale (a new locale creates it); 409 naming the state the store refuses. */
  async function update(
    ctx: RequestContext,
    projectId: string,
    kind: Kind,
    id: string,
    locale: string,
    fields: Record<string, string | null>,
  ) {
    authorize(ctx, OPERATIONS[kind].update);
    await requireItem(projectId, kind, id);
    await writer.write(
      ctx,
      projectId,
      [{ store: 'appstore', productId: id, locale, fields }],
      'edit',
      (_i, name) => name,
      OPERATIONS[kind].update,
    );
    return localeView(projectId, await requireItem(projectId, kind, id), locale);
  }

  return {
    /** Every custom product page as the last sync read it, with a preview of its first screenshots. */
    async listPages(ctx: RequestContext, projectId: string) {
      authorize(ctx, 'productPages.list');
      await projects.require(ctx, projectId);
      const [items, previews] = await Promise.all([
        itemsOf(projectId, 'customProductPage'),
        media.previews(projectId),
      ]);
      return {
        pages: items.map(({ row, texts }) => {
          const details = parseDetails(row);
          const version = details.version as { version?: string | null; deepLink?: string | null } | null;
          const { state, editable, reason, ...rest } = summary(row, texts);
          return {
            pageId: row.product_id,
            name: row.reference_name ?? '',
            visible: details.visible === true,
            url: (details.url as string | null | undefined) ?? null,
            version: {
              version: version?.version ?? null,
              state,
              editable,
              reason,
              deepLink: version?.deepLink ?? null,
            },
            ...rest,
            preview: previews.get(row.product_id) ?? null,
          };
        }),
        limits: limits.appstore.customProductPage,
      };
    },

    getPage: async (ctx: RequestContext, projectId: string, pageId: string, locale: string) => ({
      pageId,
      ...(await get(ctx, projectId, 'customProductPage', pageId, locale)),
    }),

    updatePage: async (
      ctx: RequestContext,
      projectId: string,
      pageId: string,
      locale: string,
      fields: { promotionalText?: string | null },
    ) => ({ pageId, ...(await update(ctx, projectId, 'customProductPage', pageId, locale, fields)) }),

    /**
     * Copies the default product page into a custom one for the given locales (default: every
     * App Store locale of the project the caller may edit): its promotional text, its media, or
     * both — the texts all or nothing, then the media locale by locale.
     */
    async copyDefault(
      ctx: RequestContext,
      projectId: string,
      pageId: string,
      input: { locales?: string[]; parts?: ('texts' | 'media')[] },
    ) {
      authorize(ctx, 'productPages.copyDefault');
      await projects.require(ctx, projectId);
      await requireItem(projectId, 'customProductPage', pageId);
      const parts = input.parts ?? ['texts', 'media'];
      const listings = (await listingsWithFields(db, ctx.organizationId, projectId)).filter(
        (l) => l.store === 'appstore' && l.status === 'active',
      );
      for (const [i, locale] of (input.locales ?? []).entries()) {
        if (!isStoreLocale('appstore', locale))
          throw invalidField(`locales[${i}]`, unknownLocaleMessage('appstore', locale));
      }
      if (input.locales !== undefined) requireLocalesInScope(ctx, input.locales);
      // A locale without a listing has nothing to copy: no error, nothing copied.
      const locales = [
        ...new Set(input.locales ?? listings.map((l) => l.locale).filter((l) => coversLocales(ctx, [l]))),
      ].sort();
      const copied = { texts: [] as string[], mediaSlots: 0, mediaItems: 0 };
      if (parts.includes('texts')) {
        const edits = locales.flatMap((locale) => {
          const text = listings
            .find((l) => l.locale === locale)
            ?.fields.find((f) => f.field === 'promotionalText')?.value;
          return text === undefined || text === null
            ? []
            : [{ store: 'appstore' as const, productId: pageId, locale, fields: { promotionalText: text } }];
        });
        if (edits.length > 0) {
          await writer.write(
            ctx,
            projectId,
            edits,
            'copy',
            (i, name) => `${edits[i]!.locale}.${name}`,
            null, // one entry for the whole copy, below
          );
        }
        copied.texts = edits.map((e) => e.locale);
      }
      if (parts.includes('media')) {
        for (const locale of locales) {
          const done = await media.copyDefault(ctx, projectId, { locale, pageId });
          copied.mediaSlots += done.slots;
          copied.mediaItems += done.items;
        }
      }
      // The texts and each locale's media were written on their own; the copy is audited once.
      await audit.record(
        db,
        ctx,
        'productPages.copyDefault',
        { type: 'product', id: pageId, projectId },
        {
          locales,
          ...copied,
        },
      );
      return { pageId, locales, copied };
    },

    /** Every in-app event as the last sync read it. */
    async listEvents(ctx: RequestContext, projectId: string) {
      authorize(ctx, 'appEvents.list');
      await projects.require(ctx, projectId);
      const items = await itemsOf(projectId, 'appEvent');
      return {
        events: items.map(({ row, texts }) => {
          const details = parseDetails(row);
          return {
            eventId: row.product_id,
            referenceName: row.reference_name ?? '',
            badge: (details.badge as string | null | undefined) ?? null,
            purpose: (details.purpose as string | null | undefined) ?? null,
            priority: (details.priority as string | null | undefined) ?? null,
            primaryLocale: (details.primaryLocale as string | null | undefined) ?? null,
            schedules: (details.schedules as EventSchedule[] | undefined) ?? [],
            ...summary(row, texts),
          };
        }),
        limits: limits.appstore.appEvent,
      };
    },

    getEvent: async (ctx: RequestContext, projectId: string, eventId: string, locale: string) => ({
      eventId,
      ...(await get(ctx, projectId, 'appEvent', eventId, locale)),
    }),

    updateEvent: async (
      ctx: RequestContext,
      projectId: string,
      eventId: string,
      locale: string,
      fields: { name?: string | null; shortDescription?: string | null; longDescription?: string | null },
    ) => ({ eventId, ...(await update(ctx, projectId, 'appEvent', eventId, locale, fields)) }),
  };
}

export type MarketingService = ReturnType<typeof createMarketingService>;
