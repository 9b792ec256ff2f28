import { StoreError, type StoreConnector } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { RequestContext } from '../access/context.js';
import { authorize } from '../access/operations.js';
import { actorOf } from '../audit/audit.js';
import type { CredentialsService } from '../credentials/credentials.service.js';
import type { ListingsService } from '../listings/listings.service.js';
import { planFor, type PushPlan } from '../listings/changeset.js';
import { mergeSnapshot, recordPush } from '../listings/store-merge.js';
import type { Project } from '../projects/project.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { toProject } from '../projects/projects.repository.js';
import { isLinked } from '../projects/project.js';
import { STORES, type Store } from '../stores/locales.js';
import * as ops from './operations.repository.js';
import {
  normalizeLocaleFilter,
  notLinked,
  selectStores,
  STORE_LABEL,
  type Failure,
  type OperationRecord,
  type OutcomeError,
  type PushOutcome,
  type PushPreview,
  type PushResult,
  type StoreSelection,
  type SyncOutcome,
  type SyncResult,
} from './sync.js';

/** A crashed holder's lock is taken over after this long. */
const LOCK_TTL_MS = 5 * 60_000;

export interface PushInput {
  store?: StoreSelection;
  locales?: string[];
  prune?: boolean;
  changesNotSentForReview?: boolean;
}

export interface SyncServiceDeps {
  db: Executor;
  clock: Clock;
  projects: ProjectsService;
  listings: ListingsService;
  credentials: CredentialsService;
  /** How long an operation waits for another one on the same project to finish. */
  lockWaitMs?: number;
}

const appRef = (project: Project, store: Store) =>
  (store === 'appstore' ? project.appStoreAppId : project.playStorePackageName) as string;

const storeKey = (store: Store) => (store === 'appstore' ? 'appStore' : 'playStore');

export function createSyncService(deps: SyncServiceDeps) {
  const { db, clock, projects, listings, credentials } = deps;
  const lockWaitMs = deps.lockWaitMs ?? 60_000;

  const notConfigured = (store: Store): OutcomeError => ({
    code: 'STORE_NOT_CONFIGURED',
    message: `No ${STORE_LABEL[store]} credentials are set for this organization (PUT /organization/credentials/${store})`,
  });

  /** Why a store did not run: not linked, or linked but not asked for. */
  const skipped = (project: Project, store: Store): OutcomeError =>
    isLinked(project, store)
      ? { code: 'NOT_REQUESTED', message: `${STORE_LABEL[store]} was not part of this request` }
      : notLinked(store);

  /**
   * Runs `work` holding the project's operation lock, so that a sync and a push of one project
   * never interleave — also across instances, since the lock is a row in the shared database.
   * `prepare` runs first under the lock and may refuse (nothing is recorded then); what it answers
   * is what `work` acts on. Every run is recorded with who, when, stores, locales and outcome.
   */
  async function exclusive<P, T extends object>(
    ctx: RequestContext,
    project: Project,
    kind: 'sync' | 'push',
    stores: Store[],
    locales: string[] | undefined,
    prepare: () => Promise<P>,
    work: (prepared: P) => Promise<T & { status: string }>,
  ): Promise<T> {
    const operationId = newId('op');
    const deadline = Date.now() + lockWaitMs;
    for (;;) {
      const now = clock.now();
      const expires = new Date(now.getTime() + LOCK_TTL_MS).toISOString();
      if (await ops.tryLockProject(db, project.id, operationId, now.toISOString(), expires)) break;
      if (Date.now() > deadline) {
        throw new AppError(
          'CONFLICT',
          'Another sync or push of this project is still running; try again shortly',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      const prepared = await prepare();
      await ops.insertOperation(db, {
        id: operationId,
        organization_id: ctx.organizationId,
        project_id: project.id,
        kind,
        status: 'running',
        actor_member_id: actorOf(ctx).memberId,
        stores: JSON.stringify(stores),
        locales: locales === undefined ? null : JSON.stringify(locales),
        outcome: null,
        started_at: clock.now().toISOString(),
        finished_at: null,
      });
      ctx.log.info({ operationId, kind, projectId: project.id, stores }, `${kind} started`);
      let result: T & { status: string };
      try {
        result = await work(prepared);
      } catch (error) {
        await ops.finishOperation(db, operationId, {
          status: 'failed',
          outcome: JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
          finished_at: clock.now().toISOString(),
        });
        throw error;
      }
      const { status, ...outcome } = result;
      await ops.finishOperation(db, operationId, {
        status,
        outcome: JSON.stringify(outcome),
        finished_at: clock.now().toISOString(),
      });
      ctx.log.info({ operationId, kind, status }, `${kind} finished`);
      return outcome as T;
    } finally {
      await ops.unlockProject(db, project.id, operationId);
    }
  }

  async function connector(ctx: RequestContext, store: Store): Promise<StoreConnector | null> {
    return credentials.connectorFor(ctx.organizationId, store);
  }

  const storeFailure = (error: unknown): OutcomeError => {
    if (error instanceof StoreError) return { code: error.code, message: error.message };
    throw error;
  };

  async function syncStore(ctx: RequestContext, project: Project, store: Store) {
    const client = await connector(ctx, store);
    if (client === null)
      return {
        outcome: { synced: false, locales: 0, error: notConfigured(store) },
        locales: [],
        conflicts: [],
      };
    try {
      const report = await client.read(appRef(project, store));
      const merge = await db.transaction().execute((trx) =>
        mergeSnapshot(
          trx,
          {
            organizationId: ctx.organizationId,
            projectId: project.id,
            actorMemberId: actorOf(ctx).memberId,
          },
          store,
          report.snapshot,
          clock.now().toISOString(),
        ),
      );
      ctx.log.info(
        { store, calls: report.calls, locales: merge.locales.length, conflicts: merge.conflicts.length },
        'store read',
      );
      return {
        outcome: {
          synced: true,
          locales: merge.locales.length,
          conflicts: merge.conflicts.length,
        } as SyncOutcome,
        locales: merge.locales,
        conflicts: merge.conflicts,
      };
    } catch (error) {
      return {
        outcome: { synced: false, locales: 0, error: storeFailure(error) } as SyncOutcome,
        locales: [],
        conflicts: [],
      };
    }
  }

  async function pushStore(
    ctx: RequestContext,
    project: Project,
    store: Store,
    plan: PushPlan,
    options: { prune?: boolean; changesNotSentForReview?: boolean },
  ): Promise<{ outcome: PushOutcome; locales: string[]; failures: Failure[] }> {
    const removals = options.prune === true ? plan.removals : [];
    const conflictFailures: Failure[] = plan.conflicts.map((c) => ({
      store,
      locale: c.locale,
      field: c.field,
      error: {
        code: 'CONFLICT',
        message: 'The store changed this field too: edit it here to choose, then push',
      },
    }));
    if (plan.changes.length === 0 && removals.length === 0) {
      // Nothing to write: no store call at all.
      return {
        outcome: { pushed: conflictFailures.length === 0, locales: 0 },
        locales: [],
        failures: conflictFailures,
      };
    }
    const client = await connector(ctx, store);
    if (client === null)
      return {
        outcome: { pushed: false, locales: 0, error: notConfigured(store) },
        locales: [],
        failures: [],
      };
    let report;
    try {
      report = await client.write(appRef(project, store), plan.changes, {
        removeLocales: removals,
        changesNotSentForReview: options.changesNotSentForReview ?? false,
      });
    } catch (error) {
      const failure = storeFailure(error);
      return {
        outcome: { pushed: false, locales: 0, error: failure },
        locales: [],
        failures: [{ store, locale: null, field: null, error: failure }, ...conflictFailures],
      };
    }
    const at = clock.now().toISOString();
    const accepted = plan.changes.filter((c) => report.written.includes(c.locale));
    await db
      .transaction()
      .execute((trx) => recordPush(trx, { projectId: project.id }, store, accepted, report.removed, at));
    ctx.log.info(
      { store, calls: report.calls, written: report.written.length, failed: report.failures.length },
      'store written',
    );
    const failures: Failure[] = [
      ...report.failures.map((f) => ({ store, locale: f.locale, field: f.field, error: f.error })),
      ...conflictFailures,
    ];
    const outcome: PushOutcome = { pushed: failures.length === 0, locales: report.written.length };
    if (failures.length > 0) {
      outcome.error = {
        code: 'PARTIAL_FAILURE',
        message: `${failures.length} change(s) were not accepted by ${STORE_LABEL[store]}; see data.failures`,
      };
    }
    return { outcome, locales: report.written, failures };
  }

  const service = {
    /**
     * Pulls the stores' listings and merges them (three-way, design.md §9). 200 whenever it ran;
     * each store reports `synced` and, when false, an `error`; conflicts are listed.
     */
    async sync(
      ctx: RequestContext,
      projectId: string,
      input: { store?: StoreSelection },
    ): Promise<SyncResult> {
      authorize(ctx, 'projects.sync');
      const project = toProject(await projects.requireRow(ctx, projectId));
      const stores = selectStores(project, input.store ?? 'both');
      return exclusive(
        ctx,
        project,
        'sync',
        stores,
        undefined,
        async () => undefined,
        async () => {
          const runs = new Map(
            await Promise.all(
              stores.map(async (store) => [store, await syncStore(ctx, project, store)] as const),
            ),
          );
          const result: SyncResult & { status: string } = {
            syncedLocales: [...new Set([...runs.values()].flatMap((r) => r.locales))].sort(),
            appStore: { synced: false, locales: 0 },
            playStore: { synced: false, locales: 0 },
            conflicts: [...runs.values()].flatMap((r) => r.conflicts),
            failures: [],
            status: 'succeeded',
          };
          for (const store of STORES) {
            const run = runs.get(store);
            result[storeKey(store)] = run?.outcome ?? {
              synced: false,
              locales: 0,
              error: skipped(project, store),
            };
            if (run && !run.outcome.synced && run.outcome.error) {
              result.failures.push({ store, locale: null, field: null, error: run.outcome.error });
            }
          }
          const reached = [...runs.values()].some((r) => r.outcome.synced);
          if (reached) await ops.setLastSynced(db, project.id, clock.now().toISOString());
          result.status = reached ? (result.failures.length === 0 ? 'succeeded' : 'partial') : 'failed';
          return result;
        },
      );
    },

    /**
     * A push as REST and MCP ask for it: with `dryRun`, only what it would change (previewPush);
     * otherwise the push itself (pushNow).
     */
    async push(
      ctx: RequestContext,
      projectId: string,
      input: PushInput & { dryRun?: boolean },
    ): Promise<PushResult | PushPreview> {
      const { dryRun, ...options } = input;
      return dryRun === true
        ? service.previewPush(ctx, projectId, options)
        : service.pushNow(ctx, projectId, options);
    },

    /**
     * Pushes changed fields (value ≠ base) to the stores; additive unless `prune`; one locale's
     * failure does not stop the others. 403 APPROVAL_REQUIRED per design.md §6.
     */
    async pushNow(ctx: RequestContext, projectId: string, input: PushInput): Promise<PushResult> {
      authorize(ctx, 'projects.push');
      const project = toProject(await projects.requireRow(ctx, projectId));
      const stores = selectStores(project, input.store ?? 'both');
      const locales = normalizeLocaleFilter(input.locales, stores);
      // Under the lock: read the pending changeset once, check that it is the approved one, and
      // push exactly it. An edit that lands meanwhile is neither approved nor pushed.
      const prepare = async () => {
        const pending = await listings.pending(ctx, projectId);
        listings.assertPushAllowed(ctx, pending);
        return pending.changeset;
      };
      return exclusive(ctx, project, 'push', stores, locales, prepare, async (changeset) => {
        const runs = new Map(
          await Promise.all(
            stores.map(
              async (store) =>
                [
                  store,
                  await pushStore(ctx, project, store, planFor(changeset, store, locales), input),
                ] as const,
            ),
          ),
        );
        const result: PushResult & { status: string } = {
          pushedLocales: [...new Set([...runs.values()].flatMap((r) => r.locales))].sort(),
          appStore: { pushed: false, locales: 0 },
          playStore: { pushed: false, locales: 0 },
          failures: [...runs.values()].flatMap((r) => r.failures),
          status: 'succeeded',
        };
        for (const store of STORES) {
          result[storeKey(store)] = runs.get(store)?.outcome ?? {
            pushed: false,
            locales: 0,
            error: skipped(project, store),
          };
        }
        const outcomes = [...runs.values()].map((r) => r.outcome);
        result.status = outcomes.every((o) => o.pushed)
          ? 'succeeded'
          : outcomes.some((o) => o.locales > 0)
            ? 'partial'
            : 'failed';
        return result;
      });
    },

    /**
     * What a push with these options would change, without writing anything (dry run): the
     * pending diff narrowed to the selected stores and locales. Same checks as a push.
     */
    async previewPush(
      ctx: RequestContext,
      projectId: string,
      input: { store?: StoreSelection; locales?: string[] },
    ): Promise<PushPreview> {
      authorize(ctx, 'projects.push');
      const project = toProject(await projects.requireRow(ctx, projectId));
      const stores = selectStores(project, input.store ?? 'both');
      const locales = normalizeLocaleFilter(input.locales, stores);
      const diff = await listings.diff(ctx, projectId);
      const changes: PushPreview['changes'] = {};
      let changeCount = 0;
      for (const store of stores) {
        for (const [locale, fields] of Object.entries(diff.stores[store] ?? {})) {
          if (locales !== undefined && !locales.includes(locale)) continue;
          (changes[store] ??= {})[locale] = fields;
          changeCount += Object.keys(fields).length;
        }
      }
      return { dryRun: true, stores, changeCount, changes, approval: diff.approval };
    },

    /** The recorded syncs and pushes of a project, newest first. */
    async operations(ctx: RequestContext, projectId: string, page: { limit: number; offset: number }) {
      authorize(ctx, 'projects.get');
      await projects.requireRow(ctx, projectId);
      const { rows, total } = await ops.listOperations(db, projectId, page);
      const operations: OperationRecord[] = rows.map((row) => ({
        id: row.id,
        kind: row.kind as OperationRecord['kind'],
        status: row.status as OperationRecord['status'],
        actor: { memberId: row.actor_member_id },
        stores: JSON.parse(row.stores) as Store[],
        locales: row.locales === null ? null : (JSON.parse(row.locales) as string[]),
        outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as Record<string, unknown>),
        startedAt: row.started_at,
        finishedAt: row.finished_at,
      }));
      return { operations, total };
    },
  };
  return service;
}

export type SyncService = ReturnType<typeof createSyncService>;
