/** Versions and release notes: App Store versions and What's New, Google Play tracks and their notes. */
export { notesInLocales, releaseNotesChangesOf } from './release-notes-changes.js';
export { releaseRoutes } from './releases.routes.js';
export {
  createReleasesService,
  PLAY_NOTES_MAX,
  type NotesConflict,
  type ReleasesService,
} from './releases.service.js';
