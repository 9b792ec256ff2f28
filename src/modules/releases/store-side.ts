/**
 * The releases' side of sync and push: what a store said of its releases is kept and its Play
 * notes merged three-way; a push plan's notes and What's New checked; pushed notes become the base.
 */
import type {
  LocaleChange,
  ReleaseNotesChange,
  ReleaseNotesResult,
  StoreReleases,
} from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../shared/ids.js';
import type { Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import { mergeField, type ReleaseNotesChanges } from '../listings/index.js';
import { notesInLocales } from './release-notes-changes.js';
import { releasesRepository as repo } from './releases.repository.js';
import { type NotesConflict, type ReleasesServiceDeps, whatsNewRule } from './release-rules.js';

export function createReleasesStoreSide(deps: ReleasesServiceDeps) {
  const { db, clock } = deps;
  return {
    /**
     * Takes What's New out of an App Store push plan when the rule says no, with a failure per
     * locale saying why (before any store call).
     */
    async withoutRefusedWhatsNew(
      projectId: string,
      changes: LocaleChange[],
    ): Promise<{ changes: LocaleChange[]; refused: { locale: string; reason: string }[] }> {
      if (!changes.some((c) => 'whatsNew' in c.fields)) return { changes, refused: [] };
      const rule = await whatsNewRule(db, projectId);
      if (rule.allowed) return { changes, refused: [] };
      const refused = changes
        .filter((c) => 'whatsNew' in c.fields)
        .map((c) => ({ locale: c.locale, reason: rule.reason }));
      const kept = changes
        .map((c) => ({
          ...c,
          fields: Object.fromEntries(Object.entries(c.fields).filter(([f]) => f !== 'whatsNew')),
        }))
        .filter((c) => Object.keys(c.fields).length > 0);
      return { changes: kept, refused };
    },

    /**
     * After a store was read: keeps what it said of its releases and, for Google Play, merges
     * the notes three-way (a release gone from the store takes its untouched notes with it).
     * In the caller's transaction.
     */
    async recordStore(
      trx: Executor,
      ctx: RequestContext,
      projectId: string,
      store: Store,
      releases: StoreReleases,
    ): Promise<NotesConflict[]> {
      const at = clock.now().toISOString();
      await repo.putSnapshot(trx, {
        project_id: projectId,
        store,
        data: JSON.stringify(releases),
        read_at: at,
      });
      if (store !== 'playstore') return [];
      const conflicts: NotesConflict[] = [];
      const local = await repo.notes(trx, projectId);
      const seen = new Set<string>();
      const history = [];
      const actor = actorOf(ctx);
      for (const track of releases.tracks) {
        for (const release of track.releases) {
          const versionCode = release.versionCodes[0];
          if (versionCode === undefined) continue;
          const rows = local.filter((r) => r.track === track.track && r.version_code === versionCode);
          const languages = new Set([...Object.keys(release.releaseNotes), ...rows.map((r) => r.locale)]);
          for (const locale of languages) {
            seen.add(`${track.track}/${versionCode}/${locale}`);
            const row = rows.find((r) => r.locale === locale);
            const next = mergeField(
              row && { value: row.value, base: row.base, inConflict: row.in_conflict === 1 },
              release.releaseNotes[locale] ?? null,
            );
            if (next === null) continue;
            if (next.conflict !== undefined) {
              conflicts.push({
                store,
                locale,
                field: `releaseNotes.${track.track}.${versionCode}`,
                localValue: next.value,
                storeValue: next.conflict,
              });
            }
            const key = { project_id: projectId, track: track.track, version_code: versionCode, locale };
            if (next.value === null && next.base === null && next.conflict === undefined)
              await repo.deleteNote(trx, key);
            else {
              await repo.upsertNote(trx, {
                ...key,
                value: next.value,
                base: next.base,
                in_conflict: next.conflict === undefined ? 0 : 1,
                conflict_value: next.conflict ?? null,
                updated_at: at,
              });
            }
            if ((row?.value ?? null) !== next.value) {
              history.push({
                id: newId('rnh'),
                ...key,
                old_value: row?.value ?? null,
                new_value: next.value,
                source: 'sync',
                actor_member_id: actor.memberId,
                actor_operator: actor.operator,
                created_at: at,
              });
            }
          }
        }
      }
      // Notes of releases the store no longer has: gone with them unless edited here.
      for (const row of local) {
        if (seen.has(`${row.track}/${row.version_code}/${row.locale}`)) continue;
        if (row.value === row.base && row.in_conflict === 0) await repo.deleteNote(trx, row);
      }
      await repo.insertHistory(trx, history);
      return conflicts;
    },

    /**
     * The notes a push writes, from the approved changeset (the wanted languages only);
     * conflicts left out (and said).
     */
    pushPlan(
      all: ReleaseNotesChanges,
      locales: string[] | undefined,
    ): {
      notes: ReleaseNotesChange[];
      conflicts: { track: string; versionCode: string; locale: string }[];
    } {
      const notes: ReleaseNotesChange[] = [];
      const conflicts = [];
      for (const [track, byCode] of Object.entries(notesInLocales(all, locales).changes)) {
        for (const [versionCode, byLocale] of Object.entries(byCode)) {
          const change: ReleaseNotesChange = { track, versionCode, notes: {} };
          for (const [locale, note] of Object.entries(byLocale)) {
            if (note.conflict !== undefined) conflicts.push({ track, versionCode, locale });
            else change.notes[locale] = note.new;
          }
          if (Object.keys(change.notes).length > 0) notes.push(change);
        }
      }
      return { notes, conflicts };
    },

    /** After a push: the notes the store took become the base. */
    async recordPush(projectId: string, pushed: ReleaseNotesChange[], results: ReleaseNotesResult[]) {
      const at = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        for (const result of results.filter((r) => r.written)) {
          const change = pushed.find((c) => c.track === result.track && c.versionCode === result.versionCode);
          const rows = await repo.notes(trx, projectId, {
            track: result.track,
            versionCode: result.versionCode,
          });
          for (const [locale, value] of Object.entries(change?.notes ?? {})) {
            // The base moves to what the store took; an edit made since stays pending.
            const row = rows.find((r) => r.locale === locale);
            if (row === undefined) continue;
            if (value === null && row.value === null) await repo.deleteNote(trx, row);
            else
              await repo.upsertNote(trx, {
                ...row,
                base: value,
                in_conflict: 0,
                conflict_value: null,
                updated_at: at,
              });
          }
        }
      });
    },
  };
}
