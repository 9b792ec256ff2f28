/** Listings: per-store, per-locale texts, their edits, diff, approvals, sync merge, fastlane, routes. */
export { createApprovalRequests, type ApprovalRequests } from './approval-requests.js';
export { createApprovals, type Approvals } from './approvals.js';
export {
  changesetLocales,
  countsByStore,
  fieldState,
  isEmpty,
  planFor,
  type Changeset,
  type ProductChanges,
  type DetailChanges,
  type PushPlan,
  type ReleaseNotesChanges,
} from './changeset.js';
export {
  createFastlaneTransfer,
  IMPORT_LIMITS,
  type ChangelogPort,
  type DetailsPort,
  type FastlaneTransfer,
} from './fastlane-transfer.js';
export type { Changelog, DetailFile, FileTree } from './fastlane.js';
export {
  APPSTORE_FIELDS,
  checkFieldValue,
  codePoints,
  fieldNames,
  PLAYSTORE_FIELDS,
  ruleOf,
  STORE_FIELDS,
  type FieldRule,
} from '../../shared/listing-fields.js';
export type {
  FieldChange,
  FieldEdits,
  KindCounts,
  Listing,
  ListingDiff,
  TextChange,
  TextsChanged,
} from './listing.js';
export { createDiffs, type Diffs, type Pending } from './listing-diff.js';
export { createListingWriter, type ListingEdits, type ListingWriter } from './listing-writer.js';
export type { ListingsRepository } from './listings.repository.js';
export { listingsWithFields } from './listing-reads.js';
export { listingRoutes } from './listings.routes.js';
export {
  ApprovalState,
  Change,
  Conflict,
  DetailChangesSchema,
  KindCountsByStore,
  ProductChangesSchema,
} from './listings.schemas.js';
export { createListingsService, type ListingsService } from './listings.service.js';
export { mergeField, mergeSnapshot, recordPush, type MergeResult } from './store-merge.js';
