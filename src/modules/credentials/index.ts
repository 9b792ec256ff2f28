/** Store credentials of an organization, encrypted at rest, and their routes. */
export { parseAppStoreSecret, parsePlayStoreSecret, type CredentialInfo } from './credential.js';
export { credentialRoutes } from './credentials.routes.js';
export { createCredentialsService, type CredentialsService } from './credentials.service.js';
