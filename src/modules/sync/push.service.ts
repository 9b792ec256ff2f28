/**
 * Push (design.md §9): write the pending changes to the stores, changed fields only, additive
 * unless asked to prune; or, as a dry run, answer what a push would write.
 */
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { STORE_LABEL, STORES, type Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { CredentialsService } from '../credentials/index.js';
import {
  planFor,
  recordPush,
  type Approvals,
  type Changeset,
  type Diffs,
  type PushPlan,
  type ReleaseNotesChanges,
} from '../listings/index.js';
import { plannedMediaCalls } from '../../connectors/media-plan.js';
import type { MediaChanges, StoreMediaService } from '../media/index.js';
import { notesInLocales, type ReleasesService } from '../releases/index.js';
import type { Project, ProjectsService } from '../projects/index.js';
import type { OperationControl, OperationRun, OperationRunner } from './operation-runner.js';
import {
  appRef,
  normalizeLocaleFilter,
  credentialsMissing,
  selectStores,
  skipped,
  storeKey,
  type Failure,
  type MediaPreview,
  type PushInput,
  type PushOutcome,
  type PushPreview,
  type PushResult,
} from './sync.js';
import { storeFailure } from './sync.service.js';

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
}

type PushOptions = Omit<PushInput, 'dryRun'>;

/** The release notes part of a dry run: those of the wanted languages. */
function notesPreview(changes: ReleaseNotesChanges, locales: string[] | undefined) {
  const { changes: releaseNotes, count } = notesInLocales(changes, locales);
  return { releaseNotes, releaseNoteChangeCount: count };
}

export function createPushService(deps: PushServiceDeps) {
  const { db, clock, projects, credentials, diffs, approvals, runner, media, releases } = deps;

  async function pushStore(
    ctx: RequestContext,
    project: Project,
    store: Store,
    changeset: Changeset,
    locales: string[] | undefined,
    options: { prune?: boolean; changesNotSentForReview?: boolean },
    control: OperationControl,
    resumed: boolean,
  ): Promise<{ outcome: PushOutcome; locales: string[]; failures: Failure[] }> {
    const plan: PushPlan = planFor(changeset, store, locales);
    // Resumed after its instance died: locales it recorded as written are not written again,
    // and the others are compared with the store first (their outcome is unknown).
    const already = new Set(resumed ? await control.written(store) : []);
    const skipped = plan.changes.filter((c) => already.has(c.locale));
    if (skipped.length > 0) {
      ctx.log.info(
        { store, locales: skipped.map((c) => c.locale) },
        'resumed push: already written, skipped',
      );
      // The store has them: recorded as pushed now, whatever happens to the rest.
      const at = clock.now().toISOString();
      await db
        .transaction()
        .execute((trx) => recordPush(trx, { projectId: project.id }, store, skipped, [], at));
    }
    // Said before any store call: What's New only on a version being prepared, not the first.
    const whatsNew =
      store === 'appstore'
        ? await releases.withoutRefusedWhatsNew(project.id, plan.changes)
        : { changes: plan.changes, refused: [] };
    plan.changes = whatsNew.changes;
    const ruleFailures: Failure[] = whatsNew.refused.map((r) => ({
      store,
      locale: r.locale,
      field: 'whatsNew',
      error: { code: 'NOT_EDITABLE', message: r.reason },
    }));
    const notesPlan = releases.pushPlan(store === 'playstore' ? changeset.releaseNotes : {}, locales);
    const removals = options.prune === true ? plan.removals : [];
    const mediaPlan = await media.plan(project.id, changeset.media[store] ?? {}, locales);
    control.expect(store, plan.changes.length);
    for (const change of skipped) control.advance(store, change.locale);
    const toWrite = plan.changes.filter((c) => !already.has(c.locale));
    const conflictFailures: Failure[] = [
      ...plan.conflicts.map((c) => ({
        store,
        locale: c.locale,
        field: c.field,
        error: {
          code: 'CONFLICT',
          message: 'The store changed this field too: edit it here to choose, then push',
        },
      })),
      ...ruleFailures,
      ...notesPlan.conflicts.map((c) => ({
        store,
        locale: c.locale,
        field: `releaseNotes.${c.track}.${c.versionCode}`,
        error: {
          code: 'CONFLICT',
          message: 'The store changed these release notes too: edit them here to choose, then push',
        },
      })),
      ...mediaPlan.conflicts.map((c) => ({
        store,
        locale: c.locale,
        field: `media.${c.slotType}`,
        error: {
          code: 'CONFLICT',
          message: 'The store changed these media too: edit the slot here to choose, then push',
        },
      })),
    ];
    const uploads = Object.entries(changeset.media[store] ?? {})
      .filter(([locale]) => locales === undefined || locales.includes(locale))
      .flatMap(([, bySlot]) => Object.values(bySlot))
      .reduce((sum, change) => sum + (change.conflict === undefined ? change.added.length : 0), 0);
    if (uploads > 0) control.expectMedia(store, uploads);
    const doneBefore = skipped.map((c) => c.locale);
    if (
      toWrite.length === 0 &&
      removals.length === 0 &&
      mediaPlan.slots.length === 0 &&
      notesPlan.notes.length === 0
    ) {
      // Nothing (left) to write: no store call at all.
      return {
        outcome: { pushed: conflictFailures.length === 0, locales: doneBefore.length },
        locales: doneBefore,
        failures: conflictFailures,
      };
    }
    const client = await credentials.connectorFor(ctx.organizationId, store);
    if (client === null) {
      const error = credentialsMissing(store);
      return {
        outcome: { pushed: false, locales: 0, error },
        locales: [],
        failures: [{ store, locale: null, field: null, error }, ...conflictFailures],
      };
    }
    let report;
    try {
      report = await client.write(appRef(project, store), toWrite, {
        readFirst: resumed,
        removeLocales: removals,
        changesNotSentForReview: options.changesNotSentForReview ?? false,
        beforeWrite: control.beforeWrite(store),
        onLocaleWritten: (locale) => control.advance(store, locale),
        media: mediaPlan.slots,
        onMediaItem: (item) => control.mediaItem(store, item.state),
        releaseNotes: notesPlan.notes,
      });
    } catch (error) {
      const failure = storeFailure(error);
      return {
        outcome: { pushed: false, locales: doneBefore.length, error: failure },
        locales: doneBefore,
        failures: [{ store, locale: null, field: null, error: failure }, ...conflictFailures],
      };
    }
    const at = clock.now().toISOString();
    const accepted = toWrite.filter((c) => report.written.includes(c.locale));
    report.written = [...doneBefore, ...report.written];
    await db
      .transaction()
      .execute((trx) => recordPush(trx, { projectId: project.id }, store, accepted, report.removed, at));
    await media.recordPush(project.id, store, report.media);
    await releases.recordPush(project.id, notesPlan.notes, report.releaseNotes);
    const mediaOutcome = {
      slots: report.media.filter((m) => m.failures.length === 0).length,
      uploaded: report.media.reduce((n, m) => n + m.uploaded, 0),
      deleted: report.media.reduce((n, m) => n + m.deleted, 0),
      uploadedBytes: report.uploadedBytes,
    };
    ctx.log.info(
      {
        store,
        calls: report.calls,
        written: report.written.length,
        failed: report.failures.length,
        ...(report.media.length > 0 && { media: mediaOutcome }),
      },
      'store written',
    );
    const failures: Failure[] = [
      ...report.failures.map((f) => ({ store, locale: f.locale, field: f.field, error: f.error })),
      ...report.releaseNotes
        .filter((n) => !n.written)
        .map((n) => ({
          store,
          locale: null,
          field: `releaseNotes.${n.track}.${n.versionCode}`,
          error: n.error ?? { code: 'NOT_WRITTEN', message: 'The store did not take these notes' },
        })),
      ...report.media.flatMap((m) =>
        m.failures.map((f) => ({
          store,
          locale: f.locale,
          field: `media.${f.slotType}`,
          ...(f.sha256 !== null && { sha256: f.sha256 }),
          error: f.error,
        })),
      ),
      ...conflictFailures,
    ];
    const outcome: PushOutcome = {
      pushed: failures.length === 0,
      locales: report.written.length,
      ...(mediaPlan.slots.length > 0 && { media: mediaOutcome }),
      ...(notesPlan.notes.length > 0 && {
        releaseNotes: report.releaseNotes.filter((n) => n.written).length,
      }),
    };
    if (failures.length > 0) {
      outcome.error = {
        code: 'PARTIAL_FAILURE',
        message: `${failures.length} change(s) were not accepted by ${STORE_LABEL[store]}; see data.failures`,
      };
    }
    return { outcome, locales: report.written, failures };
  }

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
          : outcomes.some((o) => o.locales > 0 || (o.media?.slots ?? 0) > 0 || (o.releaseNotes ?? 0) > 0)
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
    return {
      dryRun: true,
      stores,
      changeCount,
      changes,
      mediaChangeCount,
      uploadBytes,
      media,
      ...notesPreview(stores.includes('playstore') ? diff.releaseNotes : {}, locales),
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
                ? plannedMediaCalls(store, slotType, change, (sha) => facts.get(sha) ?? 0)
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
