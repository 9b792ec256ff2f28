/**
 * Versions and release notes (design.md §13, stores-media.md B1, B2). What the stores said of an
 * app's releases at the last sync is kept per store; the rules of release notes are checked
 * against it before any store call: App Store What's New (the listing field `whatsNew` of the
 * version being prepared) only on an editable version that is not the app's first; Google Play
 * notes per track release and language, at most 500 characters, never empty, only in languages
 * that have a listing. Play notes have a working copy and a base like listing fields: sync merges
 * them three-way, the changeset carries them, a push writes them in the edit of the texts.
 */
import { type StoreVersion, StoreError } from '../../connectors/store-connector.js';
import { AppError, invalidField } from '../../errors.js';
import { authorize, type RequestContext } from '../access/index.js';
import { releasesRepository as repo } from './releases.repository.js';
import {
  VERSION_STRING,
  type ReleasesView,
  type ReleasesServiceDeps,
  snapshotsOf,
  versionsView,
  requireAppStore,
} from './release-rules.js';
import { createPlayNotesWriter } from './play-notes-writer.js';
import { createReleaseNotes } from './release-notes.js';
import { createChangelogs } from './changelogs.js';
import { createReleasesStoreSide } from './store-side.js';

export function createReleasesService(deps: ReleasesServiceDeps) {
  const { db, clock, projects, credentials } = deps;
  const writePlayNotes = createPlayNotesWriter(deps);
  return {
    ...createReleasesStoreSide(deps),
    ...createReleaseNotes(deps, writePlayNotes),
    ...createChangelogs(deps, writePlayNotes),

    /** Versions and tracks as the last sync read them. */
    async list(ctx: RequestContext, projectId: string): Promise<ReleasesView> {
      authorize(ctx, 'releases.list');
      await projects.require(ctx, projectId);
      const { appstore, playstore } = await snapshotsOf(db, projectId);
      return {
        appStore: appstore && { readAt: appstore.readAt, versions: versionsView(appstore.releases.versions) },
        playStore: playstore && { readAt: playstore.readAt, tracks: playstore.releases.tracks },
      };
    },

    /** Creates the next App Store version; the store's refusal is passed on with its reason. */
    async createVersion(ctx: RequestContext, projectId: string, versionString: string) {
      authorize(ctx, 'releases.create');
      const project = await projects.require(ctx, projectId);
      requireAppStore(project);
      if (!VERSION_STRING.test(versionString)) {
        throw invalidField(
          'versionString',
          'a version string is up to four numbers separated by dots, e.g. 2.4.0',
        );
      }
      const connector = await credentials.connectorFor(ctx.organizationId, 'appstore');
      if (connector === null) {
        throw new AppError(
          'CONFLICT',
          'No App Store credentials are set for this organization: an admin sets them with PUT /api/v1/organization/credentials/appstore',
        );
      }
      const appId = project.appStoreAppId!;
      let version: StoreVersion;
      try {
        version = await connector.createVersion(appId, versionString);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        throw new AppError(
          'CONFLICT',
          `App Store Connect refused version ${versionString}: ${error.message}`,
          [{ field: 'versionString', message: `${error.code}: ${error.message}` }],
        );
      }
      const releases = await connector.readReleases(appId);
      await db.transaction().execute(async (trx) => {
        await repo.putSnapshot(trx, {
          project_id: projectId,
          store: 'appstore',
          data: JSON.stringify(releases),
          read_at: clock.now().toISOString(),
        });
        await deps.audit.record(
          trx,
          ctx,
          'releases.create',
          { type: 'version', id: version.id, projectId },
          { versionString },
        );
      });
      ctx.log.info({ projectId, versionString }, 'app store version created');
      return { version, versions: versionsView(releases.versions) };
    },
  };
}

export type ReleasesService = ReturnType<typeof createReleasesService>;
