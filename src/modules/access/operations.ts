/**
 * The role matrix of design.md §6 as data, keyed by operation id: one entry per operation, the
 * same id for its REST route (the OpenAPI operationId), its MCP tool and its CLI command, and the
 * label of its logs and audit entries. test/organizations/operations.test.ts fails when a route, a tool or a
 * command has no entry here, or an entry has none of them.
 */
import { forbidden } from '../../errors.js';
import type { RequestContext } from './context.js';
import type { Role } from './roles.js';

/** Who may perform an operation: roles, anyone without a key (`public`), or only the operator's CLI. */
export type Access = readonly Role[] | 'public' | 'operator';

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
  'projects.operations': anyone,

  'listings.list': anyone,
  'listings.get': anyone,
  'listings.update': editors,
  // Checks texts, writes nothing: anyone who reads the listing may.
  'listings.validate': anyone,
  'listings.delete': editors,
  'listings.diff': anyone,
  'listings.history': anyone,
  'listings.revert': editors,
  'listings.copy': editors,
  'listings.approve': admins,
  'approvalRequests.create': editors,
  'approvalRequests.list': anyone,
  'listings.export': anyone,
  'listings.import': editors,
  'locales.list': anyone,

  // Screenshots and app previews (design.md §12): members edit, viewers read.
  'media.list': anyone,
  'media.slotTypes': anyone,
  'media.upload': editors,
  'media.reorder': editors,
  'media.delete': editors,
  'media.copy': editors,
  'media.history': anyone,
  'media.revert': editors,
  'media.download': anyone,
  'media.export': anyone,
  'media.import': editors,

  // Versions and release notes (design.md §13): creating a store version is a store write.
  'releases.list': anyone,
  'releases.create': editors,
  'releaseNotes.list': anyone,
  'releaseNotes.updateAppStore': editors,
  'releaseNotes.updatePlay': editors,
  'releaseNotes.history': anyone,
  'releaseNotes.revert': editors,
  'releaseNotes.copy': editors,
  'products.list': anyone,
  'products.get': anyone,
  'products.update': editors,
  'products.history': anyone,
  'products.revert': editors,
  'products.copy': editors,
  'products.link': editors,
  // App Store custom product pages and in-app events (design.md §18).
  'productPages.list': anyone,
  'productPages.get': anyone,
  'productPages.update': editors,
  'productPages.copyDefault': editors,
  'appEvents.list': anyone,
  'appEvents.get': anyone,
  'appEvents.update': editors,
  // Release controls and scheduled changes (design.md §20): a schedule needs the right to do what it does.
  'releaseControls.get': anyone,
  'releaseControls.apply': editors,
  'schedules.list': anyone,
  'schedules.get': anyone,
  'schedules.create': editors,
  'schedules.cancel': editors,
  // App details and App Review information (design.md §19).
  'details.get': anyone,
  'details.update': editors,
  'details.history': anyone,

  // Translations (design.md §14): members translate and accept drafts; admins keep the glossaries.
  'translations.status': anyone,
  'translations.get': anyone,
  'translations.export': anyone,
  'translations.exportAll': anyone,
  'translations.import': editors,
  'translations.machine': editors,
  'translations.accept': editors,
  'glossaries.list': anyone,
  'glossaries.set': admins,
  'glossaries.delete': admins,

  'organization.get': anyone,
  'organization.update': admins,
  'organization.usage': anyone,
  'auditLog.list': admins,
  'auditLog.export': admins,

  'members.list': anyone,
  'members.updateRole': admins,
  'members.remove': admins,

  'invites.create': admins,
  'invites.list': admins,
  'invites.revoke': admins,

  // A member's own keys; acting on another member's keys also needs apiKeys.ofOtherMembers.
  'apiKeys.list': anyone,
  'apiKeys.create': anyone,
  'apiKeys.revoke': anyone,

  'credentials.list': admins,
  'credentials.setAppStore': admins,
  'credentials.setPlayStore': admins,
  'credentials.setDeepl': admins,
  'credentials.delete': admins,
  'credentials.verify': admins,

  'webhooks.list': admins,
  'webhooks.get': admins,
  'webhooks.create': admins,
  'webhooks.update': admins,
  'webhooks.delete': admins,
  'webhooks.rotateSecret': admins,
  'webhooks.test': admins,
  'webhooks.deliveries': admins,
  'webhooks.redeliver': admins,

  // Background operations and the live stream of events.
  'operations.get': anyone,
  'operations.cancel': editors,
  'events.stream': anyone,

  // Dashboard sign-in (design.md §10): a member's own sessions and passkeys; links for admins.
  'dashboard.session.get': anyone,
  'dashboard.session.delete': anyone,
  'dashboard.sessions.list': anyone,
  'dashboard.sessions.delete': anyone,
  'dashboard.sessions.deleteAll': anyone,
  'dashboard.signInLinks.create': admins,
  'dashboard.passkeys.list': anyone,
  'dashboard.passkeys.registrationOptions': anyone,
  'dashboard.passkeys.register': anyone,
  'dashboard.passkeys.delete': anyone,

  // Sign-ins carry their own credential: an API key, a sign-in link, a passkey.
  'dashboard.session.create': 'public',
  'dashboard.signInLinks.redeem': 'public',
  'dashboard.passkeys.authenticationOptions': 'public',
  'dashboard.passkeys.authenticate': 'public',
  // The unguessable invite id is the credential.
  'dashboard.invites.get': 'public',
  'dashboard.invites.accept': 'public',
  'dashboard.page': 'public',
  'dashboard.asset': 'public',
  'health.live': 'public',
  'health.ready': 'public',
  'openapi.get': 'public',
  'metrics.get': 'public',

  // The operator's CLI, on the database directly.
  'server.serve': 'operator',
  'server.worker': 'operator',
  'database.migrate': 'operator',
  'database.backup': 'operator',
  'database.restore': 'operator',
  'organization.create': 'operator',
  'organization.setPlan': 'operator',
  'organization.list': 'operator',
  'apiKeys.issue': 'operator',
  'signInLinks.issue': 'operator',
  'credentials.rotateKeys': 'operator',
  'emulators.run': 'operator',
} as const satisfies Record<string, Access>;

export type OperationId = keyof typeof OPERATIONS;

/** Operations that a role performs through an API key (or a session): the role matrix proper. */
export type RoleOperation = {
  [K in OperationId]: (typeof OPERATIONS)[K] extends readonly Role[] ? K : never;
}[OperationId];

/**
 * Rights inside an operation, beyond performing it: acting on another member's API keys (list,
 * create, revoke) is for admins.
 */
export const PERMISSIONS = {
  'apiKeys.ofOtherMembers': admins,
  // The App Review demo account password is a secret, replaced by admins only (design.md §19).
  'details.demoAccountPassword': admins,
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const isOperation = (value: string): value is OperationId => Object.hasOwn(OPERATIONS, value);

/** Whether a role may perform an operation or use a permission. */
export function isAllowed(role: Role, operation: RoleOperation | Permission): boolean {
  const roles: readonly Role[] = Object.hasOwn(PERMISSIONS, operation)
    ? PERMISSIONS[operation as Permission]
    : OPERATIONS[operation as RoleOperation];
  return roles.includes(role);
}

/** Throws 403 FORBIDDEN unless the caller's role may perform the operation (or use the permission). */
export function authorize(ctx: RequestContext, operation: RoleOperation | Permission): void {
  if (!isAllowed(ctx.principal.role, operation)) {
    throw forbidden(`The ${ctx.principal.role} role may not perform ${operation}`);
  }
}
