/** Backups of an instance (design.md §21): its database and media files in one archive, and back. */
export { BackupError } from './manifest.js';
export { restoreBackup, type RestoreSummary } from './restore-backup.js';
export { writeBackup, type BackupSummary } from './write-backup.js';
