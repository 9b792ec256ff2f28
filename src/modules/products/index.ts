/** In-app purchases and subscriptions: their texts per locale, merged by sync, planned and recorded by push. */
export {
  productChangesOf,
  productsInLocales,
  productsWithTexts,
  type ProductPushPlan,
} from './product-changes.js';
export { parseProductField, productField, type ProductMerge } from './product-merge.js';
export type { ProductRow, TextRow as ProductTextRow } from './products.repository.js';
export { productRoutes } from './products.routes.js';
export { createProductsService, type ProductsService } from './products.service.js';
export type { ProductEdit, ProductWriter } from './product-writer.js';
export { createMarketingService, type MarketingService } from './marketing.service.js';
export { marketingRoutes } from './marketing.routes.js';
