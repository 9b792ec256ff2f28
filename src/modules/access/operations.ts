/**
 * The role matrix of design.md §6 as data: every operation id and the roles that may perform it.
 * The operation id is also the OpenAPI operationId, the log label and the audit-log action.
 */
import { forbidden } from '../../errors.js';
import type { RequestContext } from './context.js';

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const anyone: readonly Role[] = ['viewer', 'member', 'admin'];
const editors: readonly Role[] = ['member', 'admin'];
const admins: readonly Role[] = ['admin'];

export const OPERATIONS = {
  'projects.list': anyone,
  'projects.get': anyone,
  'projects.create': editors,
  'projects.update': editors,
  'projects.delete': admins,
  'projects.sync': editors,
  'projects.push': editors,

  'listings.read': anyone,
  'listings.edit': editors,
  'listings.approve': admins,

  'organization.get': anyone,
  'organization.update': admins,
  'auditLog.list': admins,
  'credentials.read': admins,
  'credentials.write': admins,

  'members.list': anyone,
  'members.updateRole': admins,
  'members.remove': admins,

  'invites.create': admins,
  'invites.list': admins,
  'invites.revoke': admins,

  // A member's own keys; acting on another member's keys also needs apiKeys.manageOthers.
  'apiKeys.list': anyone,
  'apiKeys.create': anyone,
  'apiKeys.revoke': anyone,
  'apiKeys.manageOthers': admins,
} as const satisfies Record<string, readonly Role[]>;

export type OperationId = keyof typeof OPERATIONS;

export const isAllowed = (role: Role, operation: OperationId): boolean =>
  OPERATIONS[operation].includes(role);

/** Throws 403 FORBIDDEN unless the caller's role may perform the operation. */
export function authorize(ctx: RequestContext, operation: OperationId): void {
  if (!isAllowed(ctx.principal.role, operation)) {
    throw forbidden(`The ${ctx.principal.role} role may not perform ${operation}`);
  }
}

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);
