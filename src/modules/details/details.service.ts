/**
 * App details and App Review information as people read and edit them (design.md §19): one view
 * per store with each detail's state against the store, edits checked as a whole (a category that
 * does not exist is refused with the list), the demo account password shown only as whether it is
 * set and replaced by admins only; and the parts sync and push call.
 */
import type { StoreDetails } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { invalid, invalidField, type ErrorDetail } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { checkDetail, DETAIL_FIELDS, isSecretDetail } from '../../shared/detail-fields.js';
import type { KeyRing } from '../../shared/key-ring.js';
import type { Store } from '../../shared/stores.js';
import { authorize, isAllowed, type RequestContext } from '../access/index.js';
import { actorOf, historyActor, type AuditLog } from '../audit/index.js';
import type { Changeset, DetailFile } from '../listings/index.js';
import { isLinked, lockProject, STORE_IDENTIFIER, type ProjectsService } from '../projects/index.js';
import { createDetailValues } from './detail-values.js';
import { createDetailsBookkeeping, historyRow, storeValueOf } from './details-merge.js';
import { detailsRepository as repo } from './details.repository.js';

export interface DetailsServiceDeps {
  db: Executor;
  clock: Clock;
  keyRing: KeyRing;
  projects: Pick<ProjectsService, 'require'>;
  audit: Pick<AuditLog, 'record'>;
}

/** An API value: text, a flag, or for the password whether it is set. */
type ApiValue = string | boolean | null | { set: boolean };
export type DetailsBody = Record<string, unknown>;

/** Details as the API nests them: App Store review fields under `review`. */
function nest(flat: Record<string, ApiValue>): Record<string, ApiValue | Record<string, ApiValue>> {
  const out: Record<string, ApiValue | Record<string, ApiValue>> = {};
  const review: Record<string, ApiValue> = {};
  for (const [field, value] of Object.entries(flat)) {
    if (field.startsWith('review.')) review[field.slice('review.'.length)] = value;
    else out[field] = value;
  }
  if (Object.keys(review).length > 0) out.review = review;
  return out;
}

export function createDetailsService({ db, clock, keyRing, projects, audit }: DetailsServiceDeps) {
  const values = createDetailValues(keyRing);
  const books = createDetailsBookkeeping(values);

  async function requireStore(ctx: RequestContext, projectId: string, store: Store) {
    const project = await projects.require(ctx, projectId);
    if (!isLinked(project, store)) {
      throw invalidField(
        'store',
        `the project has no ${STORE_IDENTIFIER[store]}; set it with PATCH /projects/:projectId`,
      );
    }
  }

  async function view(projectId: string, store: Store) {
    const rows = new Map((await books.plainRows(db, projectId, store)).map((row) => [row.field, row]));
    const flat: Record<string, ApiValue> = {};
    const states: Record<string, 'unchanged' | 'modified' | 'conflict'> = {};
    const storeValues: Record<string, ApiValue> = {};
    for (const field of Object.keys(DETAIL_FIELDS[store])) {
      const row = rows.get(field);
      const value = row?.value ?? null;
      flat[field] = isSecretDetail(store, field) ? { set: value !== null } : storeValueOf(field, value);
      states[field] =
        row === undefined
          ? 'unchanged'
          : row.inConflict
            ? 'conflict'
            : row.value === row.base
              ? 'unchanged'
              : 'modified';
      if (row?.inConflict === true && !isSecretDetail(store, field))
        storeValues[field] = storeValueOf(field, row.conflictValue);
    }
    return {
      store,
      details: nest(flat),
      states,
      ...(Object.keys(storeValues).length > 0 && { storeValues }),
      pending: Object.values(states).filter((s) => s !== 'unchanged').length,
    };
  }

  /** The body's details, flat (`review.<name>`), as stored strings; every problem at once. */
  function flatten(ctx: RequestContext, store: Store, body: DetailsBody): Record<string, string | null> {
    const flat: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) {
      if (key === 'review' && store === 'appstore' && value !== null && typeof value === 'object') {
        for (const [name, inner] of Object.entries(value)) flat[`review.${name}`] = inner;
      } else flat[key] = value;
    }
    if (Object.keys(flat).length === 0)
      throw invalid('Name at least one detail to change', [{ field: 'body', message: 'no details given' }]);
    const problems: ErrorDetail[] = [];
    const out: Record<string, string | null> = {};
    for (const [field, raw] of Object.entries(flat)) {
      const value = typeof raw === 'boolean' ? String(raw) : raw === '' ? null : raw;
      if (value !== null && typeof value !== 'string') {
        problems.push({ field, message: 'must be a string (a flag: true or false), or null' });
        continue;
      }
      const problem = checkDetail(store, field, value);
      if (problem !== null) problems.push({ field, message: problem });
      else out[field] = value;
    }
    if (problems.length > 0)
      throw invalid(problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
    if (Object.keys(out).some((field) => isSecretDetail(store, field)))
      authorize(ctx, 'details.demoAccountPassword');
    return out;
  }

  /** Writes checked changes in one transaction, with their history and one audit entry. */
  async function apply(
    ctx: RequestContext,
    projectId: string,
    store: Store,
    changes: Record<string, string | null>,
    source: 'edit' | 'import',
  ) {
    const at = clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      const rows = new Map((await books.plainRows(trx, projectId, store)).map((row) => [row.field, row]));
      const history = [];
      for (const [field, value] of Object.entries(changes)) {
        const before = rows.get(field);
        const base = before?.inConflict === true ? before.conflictValue : (before?.base ?? null);
        if (value === null && base === null) {
          if (before !== undefined) await repo.remove(trx, { projectId, store, field });
        } else {
          await repo.upsert(
            trx,
            values.row(projectId, store, {
              field,
              value,
              base,
              inConflict: false,
              conflictValue: null,
              updatedAt: at,
            }),
          );
        }
        if ((before?.value ?? null) !== value || isSecretDetail(store, field))
          history.push(
            historyRow(
              projectId,
              store,
              field,
              { old: before?.value ?? null, new: value },
              source,
              actorOf(ctx),
              at,
            ),
          );
      }
      await repo.insertHistory(trx, history);
      // The fields changed, never their values (the password is among them). An import is
      // audited by the fastlane import's own entry.
      if (source === 'edit') {
        await audit.record(
          trx,
          ctx,
          'details.update',
          { type: 'project', id: projectId, projectId },
          {
            store,
            fields: Object.keys(changes),
          },
        );
      }
    });
  }

  return {
    async get(ctx: RequestContext, projectId: string, store: Store) {
      authorize(ctx, 'details.get');
      await requireStore(ctx, projectId, store);
      return view(projectId, store);
    },

    /** Changes details of one store, all checked first; editing a detail in conflict resolves it. */
    async update(ctx: RequestContext, projectId: string, store: Store, body: DetailsBody) {
      authorize(ctx, 'details.update');
      await requireStore(ctx, projectId, store);
      await apply(ctx, projectId, store, flatten(ctx, store, body), 'edit');
      return view(projectId, store);
    },

    /** deliver's files of the App Store details (never the demo account password): path → text. */
    async fastlaneFiles(projectId: string): Promise<Map<string, string>> {
      const files = new Map<string, string>();
      for (const row of await books.plainRows(db, projectId, 'appstore')) {
        const rule = DETAIL_FIELDS.appstore[row.field];
        if (rule?.file === undefined || rule.kind === 'secret' || row.value === null) continue;
        // Written as it is, as listing texts are: the files round-trip byte for byte.
        files.set(rule.file, row.value);
      }
      return files;
    },

    /**
     * An import's App Store details, checked (a 400 naming each file at fault); the demo account
     * password only from an admin (skipped otherwise, with the reason).
     */
    async prepareImport(ctx: RequestContext, projectId: string, files: DetailFile[]) {
      const problems: ErrorDetail[] = [];
      const skipped: { path: string; reason: string }[] = [];
      const changes: Record<string, string | null> = {};
      for (const file of files) {
        if (
          isSecretDetail('appstore', file.field) &&
          !isAllowed(ctx.principal.role, 'details.demoAccountPassword')
        ) {
          skipped.push({ path: file.path, reason: 'the demo account password is set by admins only' });
          continue;
        }
        const problem = checkDetail('appstore', file.field, file.value);
        if (problem !== null) problems.push({ field: file.path, message: problem });
        else changes[file.field] = file.value;
      }
      if (problems.length > 0)
        throw invalid(problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
      if (Object.keys(changes).length > 0) await requireStore(ctx, projectId, 'appstore');
      return {
        skipped,
        write: async () => {
          if (Object.keys(changes).length > 0) await apply(ctx, projectId, 'appstore', changes, 'import');
          return Object.keys(changes).length;
        },
      };
    },

    /** A store's detail changes, newest first (a secret's as "set"). */
    async history(
      ctx: RequestContext,
      projectId: string,
      store: Store,
      page: { limit: number; offset: number },
    ) {
      authorize(ctx, 'details.history');
      await requireStore(ctx, projectId, store);
      const rows = await repo.history(db, projectId, store, page);
      return {
        entries: rows.map((row) => ({
          id: row.id,
          field: row.field,
          old: row.old_value,
          new: row.new_value,
          source: row.source,
          actor: historyActor(row, store),
          createdAt: row.created_at,
        })),
      };
    },

    /** Sync: what a store has, merged three-way (caller's transaction). */
    merge: (trx: Executor, ctx: RequestContext, projectId: string, store: Store, incoming: StoreDetails) =>
      books.merge(trx, { projectId, actor: actorOf(ctx) }, store, incoming, clock.now().toISOString()),

    /** The details part of a changeset. */
    changesOf: (executor: Executor, projectId: string) => books.changesOf(executor, projectId),

    /** Push: the changed details of a store, in the clear, decided before any store call. */
    pushPlan: (projectId: string, changeset: Changeset, store: Store) =>
      books.pushPlan(db, projectId, store, changeset.details),

    /** Push: base = value for the details the store took. */
    async recordPush(projectId: string, store: Store, taken: { field: string; value: string | null }[]) {
      if (taken.length === 0) return;
      const at = clock.now().toISOString();
      await db.transaction().execute((trx) => books.recordPush(trx, projectId, store, taken, at));
    },
  };
}

export type DetailsService = ReturnType<typeof createDetailsService>;
