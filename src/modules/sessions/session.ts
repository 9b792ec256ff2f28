/** Dashboard sessions (design.md §10): lifetimes, secrets and the shapes the API shows. */

export const SESSION_PREFIX = 'ams_';
export const SIGN_IN_LINK_PREFIX = 'asl_';

export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;
export const WEBAUTHN_CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** last_seen_at is written at most this often, like an API key's lastUsedAt. */
export const SESSION_TOUCH_MS = 60 * 1000;

export type SignInMethod = 'api-key' | 'sign-in-link' | 'passkey' | 'invite';

/** A signed-in device as its owner sees it. */
export interface SessionInfo {
  id: string;
  method: SignInMethod;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** The session of the request that asks. */
  current: boolean;
}

/** A session just started: the cookie value, shown to the browser once, and when it ends at the latest. */
export interface StartedSession {
  sessionId: string;
  token: string;
  expiresAt: string;
}

export interface SignInLink {
  url: string;
  memberId: string;
  expiresAt: string;
}

export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}
