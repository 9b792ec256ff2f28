/** Media: screenshots and app previews per project, store, locale and slot; their files and rules. */
export type { MediaChange, MediaChanges, MediaItem, MediaSlot } from './media.js';
export { mediaChangesOf } from './media-changes.js';
export { createMediaCollection, DEFAULT_GRACE_MS, type MediaCollection } from './media-collection.js';
export { createMediaService, type MediaService } from './media.service.js';
export { displayTypeForSize, SLOT_RULES, slotRule, slotTypes, type SlotRule } from './slots.js';
export { mediaRoutes } from './media.routes.js';
export { MediaChangesSchema } from './media.schemas.js';
export { createMediaTransfer, type MediaTransfer, type TreeReader } from './media-transfer.js';
