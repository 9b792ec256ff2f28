/**
 * A push's dry run: what a push with these options would change — texts, media with the store
 * calls planned, release notes — and the approval, without writing anything.
 */
import type { Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import { countsByStore, type Diffs, type ReleaseNotesChanges } from '../listings/index.js';
import { plannedMediaCalls } from '../../connectors/media-plan.js';
import { parsePageSlot } from '../../shared/page-slots.js';
import type { MediaChanges, StoreMediaService } from '../media/index.js';
import { notesInLocales } from '../releases/index.js';
import { productsInLocales } from '../products/index.js';
import type { ProjectsService } from '../projects/index.js';
import {
  includes,
  normalizeLocaleFilter,
  selectStores,
  type MediaPreview,
  type PushInput,
  type PushPreview,
} from './sync.js';

type PushOptions = Omit<PushInput, 'dryRun'>;

export interface PushPreviewDeps {
  projects: Pick<ProjectsService, 'require'>;
  diffs: Pick<Diffs, 'diff'>;
  media: Pick<StoreMediaService, 'sizes'>;
}

/** The release notes part of a dry run: those of the wanted languages. */
function notesPreview(changes: ReleaseNotesChanges, locales: string[] | undefined) {
  const { changes: releaseNotes, count } = notesInLocales(changes, locales);
  return { releaseNotes, releaseNoteChangeCount: count };
}

export function createPushPreview(deps: PushPreviewDeps) {
  const { projects, diffs, media } = deps;

  /**
   * What a push with these options would change, without writing anything (dry run): the
   * pending diff narrowed to the selected stores and locales. It writes nothing, so anyone who may
   * read the diff may ask (listings.diff), viewers included.
   */
  async function previewPush(
    ctx: RequestContext,
    projectId: string,
    input: PushOptions,
  ): Promise<PushPreview> {
    authorize(ctx, 'listings.diff');
    const project = await projects.require(ctx, projectId);
    const stores = selectStores(project, input.store ?? 'both');
    const locales = normalizeLocaleFilter(input.locales, stores);
    const diff = await diffs.diff(ctx, projectId);
    const changes: PushPreview['changes'] = {};
    let changeCount = 0;
    for (const store of stores) {
      for (const [locale, fields] of Object.entries(diff.stores[store] ?? {})) {
        if (locales !== undefined && !locales.includes(locale)) continue;
        (changes[store] ??= {})[locale] = fields;
        changeCount += Object.keys(fields).length;
      }
    }
    const { media, mediaChangeCount, uploadBytes } = await mediaPreview(diff.media, stores, locales);
    const withListings = includes(input, 'listings');
    const notes = notesPreview(
      stores.includes('playstore') && withListings ? diff.releaseNotes : {},
      locales,
    );
    const products = productsInLocales(
      includes(input, 'products')
        ? Object.fromEntries(stores.flatMap((s) => (diff.products[s] ? [[s, diff.products[s]]] : [])))
        : {},
      locales,
    );
    if (!withListings) {
      for (const store of Object.keys(changes)) delete changes[store];
      for (const store of Object.keys(media)) delete media[store];
    }
    return {
      dryRun: true,
      stores,
      counts: countsByStore({
        stores: changes,
        media,
        releaseNotes: notes.releaseNotes,
        products: products.changes,
      }),
      changeCount: withListings ? changeCount : 0,
      changes,
      mediaChangeCount: withListings ? mediaChangeCount : 0,
      uploadBytes: withListings ? uploadBytes : 0,
      media,
      ...notes,
      products: products.changes,
      productChangeCount: products.count,
      approval: diff.approval,
    };
  }

  /** The media part of a dry run: per slot, what changes and the store calls planned. */
  async function mediaPreview(changes: MediaChanges, stores: Store[], locales: string[] | undefined) {
    const slots: PushPreview['media'] = {};
    let mediaChangeCount = 0;
    let uploadBytes = 0;
    for (const store of stores) {
      const wanted = Object.entries(changes[store] ?? {}).filter(
        ([locale]) => locales === undefined || locales.includes(locale),
      );
      const facts = await media.sizes(
        wanted.flatMap(([, bySlot]) => Object.values(bySlot).flatMap((c) => c.added)),
      );
      for (const [locale, bySlot] of wanted) {
        for (const [slotType, change] of Object.entries(bySlot)) {
          const preview: MediaPreview = {
            added: change.added,
            removed: change.removed,
            reordered: change.reordered,
            replaced: change.new.flatMap((sha, index) => {
              const old = change.old[index];
              return old !== undefined && change.added.includes(sha) && change.removed.includes(old)
                ? [{ old, new: sha }]
                : [];
            }),
            uploadBytes: change.conflict === undefined ? change.uploadBytes : 0,
            conflict: change.conflict !== undefined,
            calls:
              change.conflict === undefined
                ? plannedMediaCalls(
                    store,
                    // A custom product page's slot is written like the default page's slot type.
                    parsePageSlot(slotType)?.slotType ?? slotType,
                    change,
                    (sha) => facts.get(sha) ?? 0,
                  )
                : [],
          };
          ((slots[store] ??= {})[locale] ??= {})[slotType] = preview;
          mediaChangeCount += 1;
          uploadBytes += preview.uploadBytes;
        }
      }
    }
    return { media: slots, mediaChangeCount, uploadBytes };
  }

  return previewPush;
}
