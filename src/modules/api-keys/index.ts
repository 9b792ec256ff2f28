/** API keys: issuing, authenticating, managing, and their routes. */
export { SECRET_PREFIX, type ApiKey } from './api-key.js';
export type { ApiKeysRepository } from './api-keys.repository.js';
export { ApiKeySchema, apiKeyRoutes } from './api-keys.routes.js';
export {
  createApiKeysService,
  createKeyIssuer,
  type ApiKeysService,
  type IssueKey,
  type IssuedKey,
  type KeyToIssue,
} from './api-keys.service.js';
