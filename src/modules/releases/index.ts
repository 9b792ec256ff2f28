/** Versions and release notes: App Store versions and What's New, Google Play tracks and their notes. */
export { notesInLocales, releaseNotesChangesOf } from './release-notes-changes.js';
export { releaseRoutes } from './releases.routes.js';
export { PLAY_NOTES_MAX, type NotesConflict } from './release-rules.js';
export { createReleasesService, type ReleasesService } from './releases.service.js';
export {
  APP_STORE_ACTIONS,
  createReleaseControls,
  PLAY_ACTIONS,
  releaseActionOf,
  type ReleaseAction,
  type ReleaseActionInput,
  type ReleaseControls,
  type ReleaseControlsView,
} from './release-controls.js';
export { releaseControlRoutes } from './release-controls.routes.js';
export { ReleaseActionSchema } from './release-controls.schemas.js';
