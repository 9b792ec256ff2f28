/** The stores' locale codes and a project's locales. */
export { localeRoutes } from './locales.routes.js';
export { createLocalesService, type LocalesService } from './locales.service.js';
