/**
 * One store's part of a push, as named steps: skip what a resumed push already wrote, plan what to
 * write (texts, What's New's rule, release notes, media) and say what is left out
 * (push-failures.ts), write it in one connector call, record what the store took, answer the
 * outcome with every failure; then the store's products (push-products.ts).
 */
import type { LocaleChange, PushReport, ReleaseNotesChange } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { STORE_LABEL, type Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import type { CredentialsService } from '../credentials/index.js';
import { planFor, recordPush, type Changeset } from '../listings/index.js';
import { ofPage, type StoreMediaService } from '../media/index.js';
import type { Project } from '../projects/index.js';
import type { ReleasesService } from '../releases/index.js';
import type { OperationControl } from './operation-runner.js';
import {
  appRef,
  credentialsMissing,
  includes,
  type Failure,
  type IncludedPart,
  type LocaleWritten,
  type PushOutcome,
  type StorePushResult,
} from './sync.js';
import { createProductsPush, type ProductsPushDeps } from './push-products.js';
import { createDetailsPush, type DetailsPushDeps } from './push-details.js';
import { leftOut, reportFailures } from './push-failures.js';
import { storeFailure } from './sync.service.js';

export interface StorePushDeps extends ProductsPushDeps, DetailsPushDeps {
  db: Executor;
  clock: Clock;
  credentials: Pick<CredentialsService, 'connectorFor'>;
  media: Pick<StoreMediaService, 'plan' | 'recordPush'>;
  releases: Pick<ReleasesService, 'pushPlan' | 'recordPush' | 'withoutRefusedWhatsNew'>;
}

export interface StorePushOptions {
  prune?: boolean;
  changesNotSentForReview?: boolean;
  include?: IncludedPart[];
}

type MediaPlan = Awaited<ReturnType<StoreMediaService['plan']>>;
type NotesPlan = ReturnType<ReleasesService['pushPlan']>;

/** How many media files a store's part uploads for the default product page (for progress). */
function mediaUploads(changeset: Changeset, store: Store, locales: string[] | undefined): number {
  return Object.entries(ofPage(changeset.media[store] ?? {}))
    .filter(([locale]) => locales === undefined || locales.includes(locale))
    .flatMap(([, bySlot]) => Object.values(bySlot))
    .reduce((sum, change) => sum + (change.conflict === undefined ? change.added.length : 0), 0);
}

const mediaOutcomeOf = (report: PushReport) => ({
  slots: report.media.filter((m) => m.failures.length === 0).length,
  uploaded: report.media.reduce((n, m) => n + m.uploaded, 0),
  deleted: report.media.reduce((n, m) => n + m.deleted, 0),
  uploadedBytes: report.uploadedBytes,
});

/**
 * What the store took, locale by locale and kind by kind (texts, media, release notes), with the
 * count of each locale's failures: the table a person reads after a push.
 */
export function writtenPerLocale(
  store: Store,
  taken: {
    texts: LocaleChange[];
    media?: PushReport['media'];
    notes?: { planned: ReleaseNotesChange[]; results: PushReport['releaseNotes'] };
  },
  failures: Failure[],
): LocaleWritten[] {
  const rows = new Map<string, LocaleWritten>();
  const row = (locale: string) => {
    let found = rows.get(locale);
    if (found === undefined) {
      found = {
        store,
        locale,
        fields: 0,
        mediaSlots: 0,
        mediaItems: 0,
        releaseNotes: 0,
        products: 0,
        failures: 0,
      };
      rows.set(locale, found);
    }
    return found;
  };
  for (const change of taken.texts) row(change.locale).fields += Object.keys(change.fields).length;
  for (const slot of taken.media ?? []) {
    const target = row(slot.locale);
    if (slot.failures.length === 0) target.mediaSlots += 1;
    target.mediaItems += slot.uploaded + slot.deleted;
  }
  const notesWritten = new Set(
    (taken.notes?.results ?? []).filter((r) => r.written).map((r) => `${r.track}/${r.versionCode}`),
  );
  for (const release of taken.notes?.planned ?? []) {
    if (!notesWritten.has(`${release.track}/${release.versionCode}`)) continue;
    for (const language of Object.keys(release.notes)) row(language).releaseNotes += 1;
  }
  for (const failure of failures) if (failure.locale !== null) row(failure.locale).failures += 1;
  return [...rows.values()].sort((a, b) => (a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : 0));
}

/** The outcome of a store's part after its write, with every failure. */
function resultOf(
  store: Store,
  report: PushReport,
  pushedLocales: string[],
  planned: { media: MediaPlan; notes: NotesPlan },
  texts: LocaleChange[],
  failedBefore: Failure[],
): StorePushResult {
  const failures = reportFailures(store, report, failedBefore);
  const written = writtenPerLocale(
    store,
    { texts, media: report.media, notes: { planned: planned.notes.notes, results: report.releaseNotes } },
    failures,
  );
  const outcome: PushOutcome = {
    pushed: failures.length === 0,
    locales: pushedLocales.length,
    ...(planned.media.slots.length > 0 && { media: mediaOutcomeOf(report) }),
    ...(planned.notes.notes.length > 0 && {
      releaseNotes: report.releaseNotes.filter((n) => n.written).length,
    }),
  };
  if (failures.length > 0) {
    outcome.error = {
      code: 'PARTIAL_FAILURE',
      message: `${failures.length} change(s) were not accepted by ${STORE_LABEL[store]}; see data.failures`,
    };
  }
  return { outcome, locales: pushedLocales, failures, written };
}

export function createStorePush(deps: StorePushDeps) {
  const { db, clock, credentials, media, releases } = deps;

  const recordTexts = (
    project: Project,
    store: Store,
    accepted: Parameters<typeof recordPush>[3],
    removed: string[],
  ) => {
    const at = clock.now().toISOString();
    return db
      .transaction()
      .execute((trx) => recordPush(trx, { projectId: project.id }, store, accepted, removed, at));
  };

  /**
   * Resumed after its instance died: the locales it recorded as written are not written again
   * but recorded as pushed now (the store has them), whatever happens to the rest.
   */
  async function alreadyWritten(
    ctx: RequestContext,
    project: Project,
    store: Store,
    plan: ReturnType<typeof planFor>,
    control: OperationControl,
    resumed: boolean,
  ) {
    const written = new Set(resumed ? await control.written(store) : []);
    const skipped = plan.changes.filter((c) => written.has(c.locale));
    if (skipped.length > 0) {
      ctx.log.info(
        { store, locales: skipped.map((c) => c.locale) },
        'resumed push: already written, skipped',
      );
      await recordTexts(project, store, skipped, []);
    }
    return { written, skipped };
  }

  /** Everything a store's part writes, and what it leaves out, decided before any store call. */
  async function planStore(
    project: Project,
    store: Store,
    changeset: Changeset,
    locales: string[] | undefined,
    options: StorePushOptions,
  ) {
    const plan = planFor(changeset, store, locales);
    // What's New only on a version being prepared, not the first.
    const whatsNew =
      store === 'appstore'
        ? await releases.withoutRefusedWhatsNew(project.id, plan.changes)
        : { changes: plan.changes, refused: [] };
    const notes = releases.pushPlan(store === 'playstore' ? changeset.releaseNotes : {}, locales);
    const mediaPlan = await media.plan(project.id, changeset.media[store] ?? {}, locales);
    return {
      /** As the changeset has it: what a resumed push skips is recorded as it was written. */
      texts: plan,
      /** What is written: What's New left out where the rule says no. */
      changes: whatsNew.changes,
      removals: options.prune === true ? plan.removals : [],
      notes,
      media: mediaPlan,
      leftOut: leftOut(store, plan.conflicts, whatsNew.refused, notes, mediaPlan),
    };
  }

  const pushProducts = createProductsPush(deps);
  const pushDetails = createDetailsPush(deps);

  /**
   * One store's part of a push: its listings (texts, media, release notes), then its products,
   * then its details — each unless the request's `include` leaves it out.
   */
  return async function pushStore(
    ctx: RequestContext,
    project: Project,
    store: Store,
    changeset: Changeset,
    locales: string[] | undefined,
    options: StorePushOptions,
    control: OperationControl,
    resumed: boolean,
  ): Promise<StorePushResult> {
    const listings = includes(options, 'listings')
      ? await pushListings(ctx, project, store, changeset, locales, options, control, resumed)
      : { outcome: { pushed: true, locales: 0 }, locales: [], failures: [], written: [] };
    const connectorFor = () => credentials.connectorFor(ctx.organizationId, store);
    const withProducts = includes(options, 'products')
      ? await pushProducts(ctx, project, store, changeset, locales, connectorFor, control, listings)
      : listings;
    if (!includes(options, 'details')) return withProducts;
    return pushDetails(ctx, project, store, changeset, options, connectorFor, control, withProducts);
  };

  /** The listings of a store's push: the steps above, then one write and its records. */
  async function pushListings(
    ctx: RequestContext,
    project: Project,
    store: Store,
    changeset: Changeset,
    locales: string[] | undefined,
    options: StorePushOptions,
    control: OperationControl,
    resumed: boolean,
  ): Promise<StorePushResult> {
    const planned = await planStore(project, store, changeset, locales, options);
    const { written, skipped } = await alreadyWritten(ctx, project, store, planned.texts, control, resumed);
    control.expect(store, planned.changes.length);
    for (const change of skipped) control.advance(store, change.locale);
    const toWrite = planned.changes.filter((c) => !written.has(c.locale));
    const uploads = mediaUploads(changeset, store, locales);
    if (uploads > 0) control.expectMedia(store, uploads);
    const doneBefore = skipped.map((c) => c.locale);
    const failedBefore = planned.leftOut;
    const nothingToWrite =
      toWrite.length === 0 &&
      planned.removals.length === 0 &&
      planned.media.slots.length === 0 &&
      planned.notes.notes.length === 0;
    if (nothingToWrite) {
      // No store call at all.
      return {
        outcome: { pushed: failedBefore.length === 0, locales: doneBefore.length },
        locales: doneBefore,
        failures: failedBefore,
        written: writtenPerLocale(store, { texts: skipped }, failedBefore),
      };
    }
    const client = await credentials.connectorFor(ctx.organizationId, store);
    if (client === null) {
      const error = credentialsMissing(store);
      const failures = [{ store, locale: null, field: null, error }, ...failedBefore];
      return {
        outcome: { pushed: false, locales: 0, error },
        locales: [],
        failures,
        written: writtenPerLocale(store, { texts: [] }, failures),
      };
    }
    let report: PushReport;
    try {
      report = await client.write(appRef(project, store), toWrite, {
        readFirst: resumed,
        removeLocales: planned.removals,
        changesNotSentForReview: options.changesNotSentForReview ?? false,
        beforeWrite: control.beforeWrite(store),
        onLocaleWritten: (locale) => control.advance(store, locale),
        media: planned.media.slots,
        onMediaItem: (item) => control.mediaItem(store, item.state),
        releaseNotes: planned.notes.notes,
      });
    } catch (error) {
      const failure = storeFailure(error);
      const failures = [{ store, locale: null, field: null, error: failure }, ...failedBefore];
      return {
        outcome: { pushed: false, locales: doneBefore.length, error: failure },
        locales: doneBefore,
        failures,
        written: writtenPerLocale(store, { texts: skipped }, failures),
      };
    }
    const taken = toWrite.filter((c) => report.written.includes(c.locale));
    await recordTexts(project, store, taken, report.removed);
    await media.recordPush(project.id, store, report.media);
    await releases.recordPush(project.id, planned.notes.notes, report.releaseNotes);
    const pushedLocales = [...doneBefore, ...report.written];
    ctx.log.info(
      {
        store,
        calls: report.calls,
        written: pushedLocales.length,
        failed: report.failures.length,
        ...(report.media.length > 0 && { media: mediaOutcomeOf(report) }),
      },
      'store written',
    );
    return resultOf(store, report, pushedLocales, planned, [...skipped, ...taken], failedBefore);
  }
}
