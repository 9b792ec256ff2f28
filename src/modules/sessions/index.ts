/** Dashboard sign-in: sessions, one-time sign-in links and passkeys, and their routes. */
export type { StartedSession } from './session.js';
export { createPasskeysService, type PasskeysService } from './passkeys.service.js';
export { sessionRoutes } from './sessions.routes.js';
export { createSessionsService, type SessionsService } from './sessions.service.js';
