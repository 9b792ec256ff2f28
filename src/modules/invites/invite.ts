import type { AccessScope, Role } from '../access/index.js';

/** The spec's Invite: what the inviting admin gets back. */
export interface Invite {
  inviteId: string;
  email: string;
  role: Role;
  expiresAt: string;
  /** The scope the member will have (design.md §16). */
  access: AccessScope;
}

/** An invite as admins list it. */
export interface PendingInvite extends Invite {
  status: 'pending' | 'expired';
  invitedBy: string | null;
  createdAt: string;
}

/** What an invitee sees before accepting (no auth: the link is the credential). */
export interface InvitePreview {
  inviteId: string;
  organizationName: string;
  email: string;
  role: Role;
  expiresAt: string;
}

export const INVITE_LIFETIME_MS = 7 * 24 * 3600 * 1000;
