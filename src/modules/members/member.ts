import { textProblem } from '../../shared/text.js';
import type { AccessScope, Role } from '../access/index.js';

export interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Only `active` exists: a removed member is deleted, with its keys revoked. */
  status: 'active';
  lastActive: string | null;
  joinedAt: string;
  /** What the member may touch (design.md §16): every project and locale unless narrowed. */
  access: AccessScope;
}

// Deliberately simple: one @, no spaces, a dotted domain. Deliverability is the inviter's concern.
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/** Lower-cased, trimmed address, or null when it is not an e-mail address. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(email) || textProblem(email, { singleLine: true }) !== null) return null;
  const domain = email.split('@')[1] ?? '';
  return /^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}$/.test(domain) ? email : null;
}

export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1);
