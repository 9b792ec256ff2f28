/**
 * The columns that say who holds a credential (an API key or a session) as they are now: its
 * member, their role, status and scope, and the organization's plan. Selected with `members` and
 * `organizations` joined to the credential's table.
 */
export const CREDENTIAL_HOLDER_COLUMNS = [
  'members.id as memberId',
  'members.role as role',
  'members.status as memberStatus',
  'members.access as access',
  'organizations.id as organizationId',
  'organizations.plan as plan',
] as const;
