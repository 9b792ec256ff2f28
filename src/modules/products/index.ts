/** In-app purchases and subscriptions: their texts per locale, merged by sync, planned and recorded by push. */
export { productChangesOf, productsInLocales, type ProductPushPlan } from './product-changes.js';
export { productField, type ProductMerge } from './product-merge.js';
export { productRoutes } from './products.routes.js';
export { createProductsService, type ProductsService } from './products.service.js';
