/** Share-link invites: created by admins, accepted behind the link, and their routes. */
export { createInviteAcceptance, type AcceptedInvite, type InviteAcceptance } from './invite-acceptance.js';
export type { InvitesRepository } from './invites.repository.js';
export { dashboardInviteRoutes, inviteRoutes } from './invites.routes.js';
export { createInvitesService, type InvitesService } from './invites.service.js';
