/** App details and App Review information (design.md §19): per store, synced, diffed, approved and pushed. */
export { createDetailsService, type DetailsService } from './details.service.js';
export { detailRoutes } from './details.routes.js';
