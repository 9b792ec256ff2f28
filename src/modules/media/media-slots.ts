/**
 * Slots as the API shows them, and the one way a slot's working copy is written: inside the
 * project's lock, with a history entry per change; files held for the organization within its
 * plan's storage.
 */
import type { Executor } from '../../db/database.js';
import { invalidField, notFound, usageLimitExceeded } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { STORE_LABEL, type Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import { PLANS, type OrganizationsRepository, type Plan } from '../organizations/index.js';
import { isLinked, lockProject, STORE_IDENTIFIER, type Project } from '../projects/index.js';
import type { MediaEditSource, MediaItem, MediaSlot } from './media.js';
import { mediaRepository as repo, type ItemWithBlob, type SlotRow } from './media.repository.js';
import { slotRule } from './slots.js';
import { parsePageSlot } from '../../shared/page-slots.js';

const API_PREFIX = '/api/v1';

export const parseList = (json: string | null): string[] =>
  json === null ? [] : (JSON.parse(json) as string[]);

export function toItem(row: ItemWithBlob, position: number): MediaItem {
  return {
    id: row.id,
    sha256: row.sha256,
    md5: row.md5,
    kind: row.kind as MediaItem['kind'],
    contentType: row.content_type,
    bytes: Number(row.bytes),
    width: row.width,
    height: row.height,
    durationMs: row.duration_ms,
    fileName: row.file_name,
    position,
    url: `${API_PREFIX}/media/${row.sha256}`,
    thumbnailUrl: row.has_thumbnail === 1 ? `${API_PREFIX}/media/${row.sha256}?thumb=1` : null,
  };
}

/** Reads the slots' items in one query and shows them in the working copy's order. */
export async function toSlots(db: Executor, rows: SlotRow[]): Promise<MediaSlot[]> {
  const items = await repo.itemsWithBlobs(
    db,
    rows.flatMap((row) => parseList(row.items)),
  );
  return rows.map((row) => {
    const rule = slotRule(row.store as Store, row.slot_type)!;
    const ordered = parseList(row.items).map((id, index) => toItem(items.get(id)!, index + 1));
    const base = row.base === null ? null : parseList(row.base);
    const shas = ordered.map((item) => item.sha256);
    const page = parsePageSlot(row.slot_type);
    return {
      store: row.store as Store,
      locale: row.locale,
      slotType: page?.slotType ?? row.slot_type,
      ...(page !== null && { productPage: page.pageId }),
      kind: rule.kind,
      maxItems: rule.maxItems,
      state:
        row.conflict !== null
          ? 'conflict'
          : JSON.stringify(shas) === JSON.stringify(base ?? [])
            ? 'unchanged'
            : 'modified',
      items: ordered,
      base,
      conflict: row.conflict === null ? null : parseList(row.conflict),
    };
  });
}

/** 400 naming `field` when the project is not linked to the store. */
export function requireLinked(project: Project, store: Store, field: string): void {
  if (!isLinked(project, store)) {
    throw invalidField(
      field,
      `the project has no ${STORE_IDENTIFIER[store]}: link it to ${STORE_LABEL[store]} first`,
    );
  }
}

export function createSlotWriter(deps: {
  db: Executor;
  clock: Clock;
  organizations: Pick<OrganizationsRepository, 'find'>;
}) {
  const { db, clock, organizations } = deps;

  async function readSlot(
    executor: Executor,
    projectId: string,
    store: Store,
    locale: string,
    slotType: string,
  ) {
    const [row] = await repo.listSlots(executor, projectId, { store, locale, slotType });
    return row;
  }

  /**
   * Replaces a slot's working copy inside the project's lock, recording the change in the history.
   * `change` gets the current item ids and answers the new ones.
   */
  async function writeSlot(
    trx: Executor,
    ctx: RequestContext,
    projectId: string,
    slot: { store: Store; locale: string; slotType: string },
    source: MediaEditSource,
    change: (current: string[]) => string[] | Promise<string[]>,
  ): Promise<MediaSlot> {
    const at = clock.now().toISOString();
    const row = await readSlot(trx, projectId, slot.store, slot.locale, slot.slotType);
    const current = parseList(row?.items ?? null);
    const next = await change(current);
    const changed = JSON.stringify(next) !== JSON.stringify(current);
    // Editing a slot in conflict resolves it, as for texts: the store's files become the base, so
    // a push writes the working copy.
    const conflict = row?.conflict ?? null;
    if (changed || conflict !== null) {
      await repo.upsertSlot(trx, {
        project_id: projectId,
        store: slot.store,
        locale: slot.locale,
        slot_type: slot.slotType,
        items: JSON.stringify(next),
        base: conflict ?? row?.base ?? null,
        conflict: null,
        updated_at: at,
      });
    }
    if (changed) {
      const actor = actorOf(ctx);
      await repo.insertHistory(trx, [
        {
          id: newId('mhist'),
          project_id: projectId,
          store: slot.store,
          locale: slot.locale,
          slot_type: slot.slotType,
          old_items: JSON.stringify(current),
          new_items: JSON.stringify(next),
          source,
          actor_member_id: actor.memberId,
          actor_operator: actor.operator,
          created_at: at,
        },
      ]);
    }
    const written = await readSlot(trx, projectId, slot.store, slot.locale, slot.slotType);
    if (written === undefined) return emptySlot(slot);
    const [view] = await toSlots(trx, [written]);
    return view!;
  }

  const emptySlot = (slot: { store: Store; locale: string; slotType: string }): MediaSlot => {
    const rule = slotRule(slot.store, slot.slotType)!;
    const page = parsePageSlot(slot.slotType);
    return {
      ...slot,
      slotType: page?.slotType ?? slot.slotType,
      ...(page !== null && { productPage: page.pageId }),
      kind: rule.kind,
      maxItems: rule.maxItems,
      state: 'unchanged',
      items: [],
      base: null,
      conflict: null,
    };
  };

  const writeProject = <T>(projectId: string, work: (trx: Executor) => Promise<T>) =>
    db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      return work(trx);
    });

  async function quotaOf(executor: Executor, organizationId: string) {
    const org = await organizations.find(executor, organizationId);
    if (org === undefined) throw notFound('Organization');
    return {
      plan: org.plan as Plan,
      limit: PLANS[org.plan as Plan].mediaBytes,
      used: Number(org.media_bytes),
    };
  }

  /** Adds items (same store and slot rules already checked) holding each file for the organization. */
  async function holdAll(trx: Executor, ctx: RequestContext, files: { sha256: string; bytes: number }[]) {
    const { plan, limit } = await quotaOf(trx, ctx.organizationId);
    for (const file of files) {
      const ok = await repo.hold(trx, ctx.organizationId, file, limit, clock.now().toISOString());
      if (!ok) {
        const { used } = await quotaOf(trx, ctx.organizationId);
        throw usageLimitExceeded(
          `Media storage is full: the ${plan} plan holds ${limit} bytes and ${used} are used; the file needs ${file.bytes}`,
        );
      }
    }
  }

  /**
   * Refuses files the organization's storage has no room for before any of their bytes is stored
   * (holdAll checks again, atomically, once they are): a refused upload must not fill the disk.
   */
  async function checkRoom(ctx: RequestContext, files: { sha256: string; bytes: number }[]) {
    const { plan, limit, used } = await quotaOf(db, ctx.organizationId);
    if (limit === null) return;
    const unique = new Map(files.map((file) => [file.sha256, file.bytes]));
    let needed = 0;
    for (const [sha256, bytes] of unique) {
      if (!(await repo.holds(db, ctx.organizationId, sha256))) needed += bytes;
    }
    if (used + needed > limit) {
      throw usageLimitExceeded(
        `Media storage is full: the ${plan} plan holds ${limit} bytes and ${used} are used; ${files.length === 1 ? 'the file needs' : 'the files need'} ${needed}`,
      );
    }
  }

  return { readSlot, writeSlot, writeProject, holdAll, checkRoom };
}

export type SlotWriter = ReturnType<typeof createSlotWriter>;
