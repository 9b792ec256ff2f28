/**
 * Push (design.md §9): write the pending changes to the stores, changed fields only, additive
 * unless asked to prune; or, as a dry run, answer what a push would write.
 */
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { STORES, type Store } from '../../shared/stores.js';
import { authorize, requireLocalesInScope, scopeOf, type RequestContext } from '../access/index.js';
import type { CredentialsService } from '../credentials/index.js';
import { changesetLocales, type Approvals, type Changeset, type Diffs } from '../listings/index.js';
import type { StoreMediaService } from '../media/index.js';
import type { ReleasesService } from '../releases/index.js';
import type { ProductsService } from '../products/index.js';
import type { DetailsService } from '../details/index.js';
import type { Project, ProjectsService } from '../projects/index.js';
import type { OperationRun, OperationRunner } from './operation-runner.js';
import {
  normalizeLocaleFilter,
  selectStores,
  skipped,
  storeKey,
  type PushInput,
  type PushPreview,
  type PushResult,
} from './sync.js';
import { createStorePush } from './push-store.js';
import { createPushPreview } from './push-preview.js';

export interface PushServiceDeps {
  db: Executor;
  clock: Clock;
  projects: Pick<ProjectsService, 'require'>;
  credentials: Pick<CredentialsService, 'connectorFor'>;
  diffs: Pick<Diffs, 'pending' | 'diff'>;
  approvals: Pick<Approvals, 'assertPushAllowed'>;
  runner: OperationRunner;
  media: Pick<StoreMediaService, 'plan' | 'recordPush' | 'sizes'>;
  releases: Pick<ReleasesService, 'pushPlan' | 'recordPush' | 'withoutRefusedWhatsNew'>;
  products: Pick<ProductsService, 'pushPlan' | 'recordPush'>;
  details: Pick<DetailsService, 'pushPlan' | 'recordPush'>;
}

type PushOptions = Omit<PushInput, 'dryRun'>;

export function createPushService(deps: PushServiceDeps) {
  const { projects, diffs, approvals, runner } = deps;

  const pushStore = createStorePush(deps);

  /** The push as an operation of the runner. */
  function operation(
    ctx: RequestContext,
    project: Project,
    stores: Store[],
    locales: string[] | undefined,
    input: PushOptions,
    resumeFrom: Changeset | undefined,
  ): OperationRun<Changeset, PushResult> {
    return {
      kind: 'push',
      stores,
      locales,
      // Under the lock: read the pending changeset once, check that it is the approved one, and
      // push exactly it. An edit that lands meanwhile is neither approved nor pushed. A push
      // resumed after a restart pushes the changeset it started with (checked then).
      prepare: async () => {
        if (resumeFrom !== undefined) return resumeFrom;
        const pending = await diffs.pending(ctx, project.id);
        // design.md §16: every locale the push writes must be in the caller's scope.
        requireLocalesInScope(ctx, changesetLocales(pending.changeset, stores, locales));
        await approvals.assertPushAllowed(ctx, project.id, pending);
        return pending.changeset;
      },
      work: async (changeset, control) => {
        const runs = new Map(
          await Promise.all(
            stores.map(
              async (store) =>
                [
                  store,
                  await pushStore(
                    ctx,
                    project,
                    store,
                    changeset,
                    locales,
                    input,
                    control,
                    resumeFrom !== undefined,
                  ),
                ] as const,
            ),
          ),
        );
        const result: PushResult & { status: string } = {
          pushedLocales: [...new Set([...runs.values()].flatMap((r) => r.locales))].sort(),
          appStore: { pushed: false, locales: 0 },
          playStore: { pushed: false, locales: 0 },
          failures: [...runs.values()].flatMap((r) => r.failures),
          written: [...runs.values()].flatMap((r) => r.written),
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
          : outcomes.some(
                (o) =>
                  o.locales > 0 ||
                  (o.media?.slots ?? 0) > 0 ||
                  (o.releaseNotes ?? 0) > 0 ||
                  (o.products ?? 0) > 0,
              )
            ? 'partial'
            : 'failed';
        return result;
      },
      events: (result, status) => [
        {
          type: status === 'failed' ? 'push.failed' : 'push.completed',
          data: {
            projectId: project.id,
            status,
            pushedLocales: result.pushedLocales,
            appStore: result.appStore,
            playStore: result.playStore,
            failures: result.failures,
          },
        },
      ],
      failureEvents: (message) => [
        { type: 'push.failed', data: { projectId: project.id, status: 'failed', error: message } },
      ],
    };
  }

  /**
   * Checks a push request and describes the operation it starts; `resumeFrom` is the changeset a
   * background push started with, when it is resumed.
   */
  async function plan(ctx: RequestContext, projectId: string, input: PushOptions, resumeFrom?: Changeset) {
    authorize(ctx, 'projects.push');
    const project = await projects.require(ctx, projectId);
    const stores = selectStores(project, input.store ?? 'both');
    const locales = normalizeLocaleFilter(input.locales, stores);
    if (resumeFrom === undefined && scopeOf(ctx.principal).locales !== 'all') {
      // A narrowed member hears it before a background push is queued too; the run checks again
      // against what it writes. Unscoped callers skip the read: the run's check is all they need.
      const { changeset } = await diffs.pending(ctx, project.id);
      requireLocalesInScope(ctx, changesetLocales(changeset, stores, locales));
    }
    return { project, run: operation(ctx, project, stores, locales, input, resumeFrom) };
  }

  /**
   * Pushes changed fields (value ≠ base) to the stores; additive unless `prune`; one locale's
   * failure does not stop the others. 403 APPROVAL_REQUIRED per design.md §6.
   */
  async function pushNow(ctx: RequestContext, projectId: string, input: PushOptions): Promise<PushResult> {
    const { project, run } = await plan(ctx, projectId, input);
    return runner.run(ctx, project, run);
  }

  const previewPush = createPushPreview(deps);

  return {
    /** A push as REST and MCP ask for it: with `dryRun`, only what it would change; otherwise the push. */
    async push(ctx: RequestContext, projectId: string, input: PushInput): Promise<PushResult | PushPreview> {
      const { dryRun, ...options } = input;
      return dryRun === true ? previewPush(ctx, projectId, options) : pushNow(ctx, projectId, options);
    },
    pushNow,
    previewPush,
    plan,
  };
}

export type PushService = ReturnType<typeof createPushService>;
