/** Organizations: settings, plans, the operator's setup, and their routes. */
export { activeCaller, type CredentialOwner } from './caller.js';
export {
  DEFAULT_SETTINGS,
  isEmailDomain,
  NAME_MAX,
  normalizeName,
  parseSettings,
  type Organization,
  type OrganizationSettings,
} from './organization.js';
export {
  createOrganizationSetup,
  type CreatedOrganization,
  type OrganizationSetup,
} from './organization-setup.js';
export type { OrganizationRow, OrganizationsRepository } from './organizations.repository.js';
export { organizationRoutes } from './organizations.routes.js';
export { DisplayName } from './organizations.schemas.js';
export { createOrganizationsService, type OrganizationsService } from './organizations.service.js';
export { ANONYMOUS_REQUESTS_PER_MINUTE, isPlan, PLAN_NAMES, PLANS, type Plan } from './plans.js';
