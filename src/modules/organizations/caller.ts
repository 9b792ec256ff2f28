import { isRole, parseScope, type Caller } from '../access/index.js';
import { isPlan, PLANS } from './plans.js';

/** What a credential's lookup (API key or session) reads about its member and organization. */
export interface CredentialOwner {
  organizationId: string;
  plan: string;
  memberId: string;
  role: string;
  memberStatus: string;
  /** The member's scope as stored (JSON; null: everything). */
  access: string | null;
}

/**
 * The caller a credential stands for, with the member's current role and the plan's rate; null
 * when the member is not active or a stored role or plan is unknown (refused like a bad credential).
 */
export function activeCaller(
  owner: CredentialOwner,
  credential: { keyId: string | null; sessionId?: string },
): Caller | null {
  if (owner.memberStatus !== 'active' || !isRole(owner.role) || !isPlan(owner.plan)) return null;
  return {
    organizationId: owner.organizationId,
    requestsPerMinute: PLANS[owner.plan].requestsPerMinute,
    principal: {
      memberId: owner.memberId,
      role: owner.role,
      ...(owner.role !== 'admin' && owner.access !== null && { access: parseScope(owner.access) }),
      ...credential,
    },
  };
}
