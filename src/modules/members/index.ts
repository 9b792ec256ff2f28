/** Members of an organization and their routes. */
export { emailDomain, normalizeEmail, type Member } from './member.js';
export { memberByEmail } from './member-lookup.js';
export type { MembersRepository } from './members.repository.js';
export { AccessInput, AccessSchema, MemberSchema, memberRoutes, RoleSchema } from './members.routes.js';
export { createMembersService, type MembersService } from './members.service.js';
