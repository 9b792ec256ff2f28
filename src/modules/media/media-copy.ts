/**
 * Copying slots between locales and stores: the same files (no bytes copied) as new items, each
 * checked against the target slot's rules first; all or nothing.
 */
import type { Executor } from '../../db/database.js';
import { invalid, invalidField } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import {
  isStoreLocale,
  mapLocale,
  STORE_LABEL,
  unknownLocaleMessage,
  type Store,
} from '../../shared/stores.js';
import { authorize, coversLocales, requireLocalesInScope, type RequestContext } from '../access/index.js';
import type { Project, ProjectsService } from '../projects/index.js';
import { factsOfBlob } from './file-inspection.js';
import { requireLinked, toSlots, type createSlotWriter } from './media-slots.js';
import type { MediaSlot, PageLocks } from './media.js';
import type { AuditLog } from '../audit/index.js';
import { mediaRepository as repo } from './media.repository.js';
import { checkFile, countBreak, displayTypeForSize, slotRule } from './slots.js';
import { slotKey } from '../../shared/page-slots.js';
import { AppError, notFound } from '../../errors.js';

type SlotWriter = ReturnType<typeof createSlotWriter>;

export interface MediaCopyDeps {
  db: Executor;
  clock: Clock;
  projects: Pick<ProjectsService, 'require'>;
  audit: Pick<AuditLog, 'record'>;
  writeProject: SlotWriter['writeProject'];
  writeSlot: SlotWriter['writeSlot'];
  /** A custom product page of the project, and why the store refuses changes to it now. */
  pages: PageLocks;
}

/** Where a copy reads or writes: a store's locale, on the default page or a custom product page. */
interface CopyPlace {
  store: Store;
  locale?: string;
  productPage?: string | undefined;
}

/** The default target slot type of a cross-store copy (or the same type within a store). */
function targetSlotType(from: Store, to: Store, slot: MediaSlot): string | undefined {
  if (from === to) return slot.slotType;
  if (from === 'appstore') {
    if (/^(APP_|IMESSAGE_APP_)IPHONE_/.test(slot.slotType)) return 'phoneScreenshots';
    if (/^(APP_|IMESSAGE_APP_)IPAD_/.test(slot.slotType)) return 'tenInchScreenshots';
    if (slot.slotType === 'APP_APPLE_TV') return 'tvScreenshots';
    return undefined;
  }
  if (!slot.slotType.endsWith('Screenshots')) return undefined;
  const first = slot.items[0];
  return first?.width && first.height ? displayTypeForSize(first.width, first.height, '') : undefined;
}

export function createMediaCopy({
  db,
  clock,
  projects,
  audit,
  writeProject,
  writeSlot,
  pages,
}: MediaCopyDeps) {
  /** A custom product page named by a copy: an App Store page of the project (and for a target, editable). */
  async function requirePage(projectId: string, place: CopyPlace, field: string, writing: boolean) {
    if (place.productPage === undefined) return;
    if (place.store !== 'appstore')
      throw invalidField(`${field}.productPage`, 'custom product pages are App Store pages (store appstore)');
    const page = await pages.lockOf(projectId, place.productPage);
    if (page === undefined) throw notFound(`Custom product page ${place.productPage}`);
    if (writing && page.locked !== null) {
      throw new AppError('CONFLICT', page.locked, [
        { field: `${field}.productPage`, message: 'not editable now' },
      ]);
    }
  }

  /** Target locales of a copy: one, or with "*" every locale the target store knows in the project. */
  async function targetLocales(
    ctx: RequestContext,
    project: Project,
    input: { from: CopyPlace & { locale: string }; to: CopyPlace },
  ): Promise<string[]> {
    if (input.to.locale === '*') {
      const locales = new Set(await repo.listingLocales(db, project.id, input.to.store));
      for (const row of await repo.listSlots(db, project.id, { store: input.to.store }))
        locales.add(row.locale);
      if (input.from.store === input.to.store && input.from.productPage === input.to.productPage)
        locales.delete(input.from.locale);
      // "Every locale" of a member narrowed to some means every locale of theirs.
      for (const locale of locales) if (!coversLocales(ctx, [locale])) locales.delete(locale);
      if (locales.size === 0)
        throw invalidField(
          'to.locale',
          `the project has no ${STORE_LABEL[input.to.store]} locale to copy into`,
        );
      return [...locales].sort();
    }
    const locale = input.to.locale ?? mapLocale(input.from.store, input.to.store, input.from.locale);
    if (locale === null) {
      throw invalidField(
        'to.locale',
        `${STORE_LABEL[input.to.store]} has no locale for "${input.from.locale}"; name one`,
      );
    }
    if (!isStoreLocale(input.to.store, locale))
      throw invalidField('to.locale', unknownLocaleMessage(input.to.store, locale));
    return [locale];
  }

  /**
   * Copies slots from one store/locale to another (no bytes copied: the same files, new items).
   * Within a store slot types stay; across stores App Store screenshots go to Play's screenshot
   * types (iPhone → phone, iPad → ten-inch, Apple TV → TV) and Play screenshots to the display
   * type their pixel size says. `slotTypes` picks source slots, each optionally `source:target`.
   * `to.locale` "*" copies into every locale the target store has a listing or media in.
   * Every file is checked against the target slot's rules first; all or nothing.
   */
  return async function copy(
    ctx: RequestContext,
    projectId: string,
    input: {
      from: CopyPlace & { locale: string };
      to: CopyPlace;
      slotTypes?: string[];
    },
  ): Promise<{ slots: MediaSlot[]; copied: { from: string; to: string; items: number }[] }> {
    authorize(ctx, 'media.copy');
    const project = await projects.require(ctx, projectId);
    requireLinked(project, input.from.store, 'from.store');
    requireLinked(project, input.to.store, 'to.store');
    await requirePage(projectId, input.from, 'from', false);
    await requirePage(projectId, input.to, 'to', true);
    const sourceSlots = (
      await toSlots(
        db,
        await repo.listSlots(db, projectId, { store: input.from.store, locale: input.from.locale }),
      )
    ).filter((slot) => slot.productPage === input.from.productPage);
    const wanted = (
      input.slotTypes ?? sourceSlots.filter((s) => s.items.length > 0).map((s) => s.slotType)
    ).map((entry, index) => {
      const [from, to] = entry.split(':') as [string, string | undefined];
      if (slotRule(input.from.store, from) === undefined) {
        throw invalidField(
          `slotTypes[${index}]`,
          `${from} is not a ${STORE_LABEL[input.from.store]} slot type`,
        );
      }
      const slot = sourceSlots.find((s) => s.slotType === from);
      if (slot === undefined || slot.items.length === 0) {
        throw invalidField(
          `slotTypes[${index}]`,
          `${input.from.store}/${input.from.locale}/${from} has no media`,
        );
      }
      const target = to ?? targetSlotType(input.from.store, input.to.store, slot);
      if (target === undefined || slotRule(input.to.store, target) === undefined) {
        throw invalidField(
          `slotTypes[${index}]`,
          `${from} has no counterpart in ${STORE_LABEL[input.to.store]}; name one as "${from}:<slotType>"`,
        );
      }
      return { slot, target, rule: slotRule(input.to.store, target)! };
    });
    if (wanted.length === 0)
      throw invalid(`Nothing to copy: ${input.from.store}/${input.from.locale} has no media`);

    const locales = await targetLocales(ctx, project, input);
    requireLocalesInScope(ctx, locales);
    const blobs = await repo.itemsWithBlobs(
      db,
      wanted.flatMap(({ slot }) => slot.items.map((item) => item.id)),
    );
    const breaks: { field: string; message: string }[] = [];
    for (const [index, { slot, rule }] of wanted.entries()) {
      if (slot.items.length > rule.maxItems) {
        breaks.push({ field: `slotTypes[${index}]`, message: countBreak(rule, slot.items.length).message });
      }
      for (const item of slot.items) {
        for (const b of checkFile(rule, factsOfBlob(blobs.get(item.id)!)).breaks) {
          breaks.push({
            field: `slotTypes[${index}].items[${item.position - 1}].${b.rule}`,
            message: `${item.fileName}: ${b.message}`,
          });
        }
      }
    }
    if (breaks.length > 0) throw invalid(`Cannot copy: ${breaks.map((b) => b.message).join('; ')}`, breaks);

    const at = clock.now().toISOString();
    const slots = await writeProject(projectId, async (trx) => {
      const written: MediaSlot[] = [];
      for (const locale of locales) {
        for (const { slot, target } of wanted) {
          const items = slot.items.map((item) => ({
            id: newId('med'),
            organization_id: ctx.organizationId,
            project_id: projectId,
            store: input.to.store,
            locale,
            slot_type: slotKey(target, input.to.productPage),
            sha256: item.sha256,
            file_name: item.fileName,
            created_at: at,
          }));
          await repo.insertItems(trx, items);
          written.push(
            await writeSlot(
              trx,
              ctx,
              projectId,
              { store: input.to.store, locale, slotType: slotKey(target, input.to.productPage) },
              'copy',
              () => items.map((item) => item.id),
            ),
          );
        }
      }
      await audit.record(
        trx,
        ctx,
        'media.copy',
        { type: 'mediaSlot', id: `${input.from.store}/${input.from.locale}`, projectId },
        {
          to: { store: input.to.store, locales },
          slots: wanted.map(({ slot, target }) => `${slot.slotType}:${target}`),
        },
      );
      return written;
    });
    return {
      slots,
      copied: wanted.map(({ slot, target }) => ({
        from: slot.slotType,
        to: target,
        items: slot.items.length,
      })),
    };
  };
}
