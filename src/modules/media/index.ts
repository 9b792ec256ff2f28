/** Media: screenshots and app previews per project, store, locale and slot; their files and rules. */
export type { MediaChanges } from './media.js';
export { mediaChangesOf } from './media-changes.js';
export { createMediaCollection } from './media-collection.js';
export { createMediaService } from './media.service.js';
export { mediaRoutes } from './media.routes.js';
export { MediaChangesSchema } from './media.schemas.js';
export { createMediaTransfer } from './media-transfer.js';
export {
  createStoreMedia,
  ofPage,
  pagesWithMedia,
  type MediaConflict,
  type MediaMerge,
  type StoreMediaService,
} from './store-media.js';
export { fileKey, thumbnailKey } from './media-ingest.js';
