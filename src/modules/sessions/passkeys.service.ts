/**
 * Passkeys (WebAuthn) of dashboard members: registered from a signed-in session, then used to
 * sign in without anything else. Discoverable credentials, so sign-in needs no e-mail first.
 */
import type * as WebAuthn from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Executor } from '../../db/database.js';
import { invalidField, notFound, unauthorized } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { MembersRepository } from '../members/index.js';
import { normalizeName } from '../organizations/index.js';
import { WEBAUTHN_CHALLENGE_TTL_MS, type Passkey, type StartedSession } from './session.js';
import { challengesRepository as challenges, passkeysRepository as passkeys } from './sessions.repository.js';
import { sessionsRepository as sessions } from './sessions.repository.js';
import type { SignInRequest, StartSession } from './sessions.service.js';
import { lazyModule } from '../../shared/lazy-module.js';

/** Loaded with the first passkey ceremony, not by every instance at start-up. */
const webAuthn = lazyModule<typeof WebAuthn>('@simplewebauthn/server');

export interface PasskeysServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  /** The dashboard's address: its host is the relying party, its origin the one WebAuthn checks. */
  publicUrl: string;
  members: Pick<MembersRepository, 'find'>;
  startSession: StartSession;
}

const RP_NAME = 'appmeta';

/**
 * The library's verification; its failures are the client's fault: a 400 that names the cause in
 * the library's words when it checked something (a challenge, an origin, a signature). A response
 * of the wrong shape fails inside the library instead (a TypeError, a stack overflow): that says
 * nothing to a client, so it is named as what it is.
 */
const verified = <T>(verification: Promise<T>): Promise<T> =>
  verification.catch((error: unknown) => {
    const checked = error instanceof Error && !(error instanceof TypeError) && !(error instanceof RangeError);
    throw invalidField(
      'response',
      checked
        ? `the passkey response was not accepted: ${error.message}`
        : 'is not a WebAuthn credential response (the fields navigator.credentials returns, base64url-encoded)',
    );
  });

export function createPasskeysService(deps: PasskeysServiceDeps) {
  const { db, clock, audit } = deps;
  const url = new URL(deps.publicUrl);
  const rpID = url.hostname;
  const origin = url.origin;

  function sessionOf(ctx: RequestContext): string {
    const id = ctx.principal.sessionId;
    if (id === undefined) {
      throw invalidField(
        'session',
        'a passkey is added from a signed-in dashboard session, not with an API key',
      );
    }
    return id;
  }

  return {
    async list(ctx: RequestContext): Promise<Passkey[]> {
      authorize(ctx, 'dashboard.passkeys.list');
      const rows = await passkeys.listOfMember(db, ctx.principal.memberId);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
      }));
    },

    /** Options for navigator.credentials.create; the challenge is kept on the asking session. */
    async registrationOptions(ctx: RequestContext) {
      authorize(ctx, 'dashboard.passkeys.registrationOptions');
      const sessionId = sessionOf(ctx);
      const member = await deps.members.find(db, ctx.organizationId, ctx.principal.memberId);
      if (member === undefined) throw notFound('Member');
      const existing = await passkeys.listOfMember(db, member.id);
      const options = await webAuthn().generateRegistrationOptions({
        rpName: RP_NAME,
        rpID,
        userName: member.email,
        userDisplayName: member.name,
        userID: new TextEncoder().encode(member.id),
        attestationType: 'none',
        excludeCredentials: existing.map((row) => ({
          id: row.credential_id,
          transports: JSON.parse(row.transports) as string[],
        })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      await db.transaction().execute(async (trx) => {
        await sessions.setRegistrationChallenge(trx, sessionId, options.challenge);
        await audit.record(trx, ctx, 'dashboard.passkeys.registrationOptions', {
          type: 'session',
          id: sessionId,
        });
      });
      return options;
    },

    /** Verifies the authenticator's answer to the session's challenge and keeps the passkey. */
    async register(
      ctx: RequestContext,
      input: { response: RegistrationResponseJSON; name?: string },
    ): Promise<Passkey> {
      authorize(ctx, 'dashboard.passkeys.register');
      const sessionId = sessionOf(ctx);
      const name = normalizeName('name', input.name ?? 'Passkey');
      const session = await sessions.find(db, sessionId);
      const challenge = session?.registration_challenge ?? null;
      if (challenge === null) throw invalidField('response', 'ask for registration options first');
      await sessions.setRegistrationChallenge(db, sessionId, null);
      const verification = await verified(
        webAuthn().verifyRegistrationResponse({
          response: input.response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: false,
        }),
      );
      if (!verification.verified) throw invalidField('response', 'the passkey response was not accepted');
      const { credential } = verification.registrationInfo;
      const now = clock.now().toISOString();
      const id = newId('pk');
      await db.transaction().execute(async (trx) => {
        await passkeys.insert(trx, {
          id,
          credential_id: credential.id,
          organization_id: ctx.organizationId,
          member_id: ctx.principal.memberId,
          name,
          public_key: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: JSON.stringify(credential.transports ?? []),
          created_at: now,
          last_used_at: null,
        });
        await audit.record(trx, ctx, 'dashboard.passkeys.register', { type: 'passkey', id }, { name });
      });
      return { id, name, createdAt: now, lastUsedAt: null };
    },

    async remove(ctx: RequestContext, passkeyId: string): Promise<void> {
      authorize(ctx, 'dashboard.passkeys.delete');
      await db.transaction().execute(async (trx) => {
        if (!(await passkeys.remove(trx, ctx.principal.memberId, passkeyId))) throw notFound('Passkey');
        await audit.record(trx, ctx, 'dashboard.passkeys.delete', { type: 'passkey', id: passkeyId });
      });
    },

    /** Options for navigator.credentials.get, with the id under which the challenge waits (5 min). */
    async authenticationOptions() {
      const options = await webAuthn().generateAuthenticationOptions({ rpID, userVerification: 'preferred' });
      const challengeId = newId('wch');
      const expiresAt = new Date(clock.now().getTime() + WEBAUTHN_CHALLENGE_TTL_MS).toISOString();
      await challenges.insert(db, { id: challengeId, challenge: options.challenge, expires_at: expiresAt });
      return { challengeId, options };
    },

    /** Signs in with a passkey: the challenge is used once, the counter checked and kept. */
    async authenticate(
      input: { challengeId: string; response: AuthenticationResponseJSON },
      request: SignInRequest,
    ): Promise<StartedSession> {
      const now = clock.now().toISOString();
      const challenge = await challenges.take(db, input.challengeId, now);
      if (challenge === undefined)
        throw invalidField('challengeId', 'unknown or expired: ask for new options');
      const passkey = await passkeys.findByCredentialId(db, input.response.id);
      if (passkey === undefined || passkey.memberStatus !== 'active') {
        throw unauthorized('This passkey is not registered with appmeta (or its member was removed)');
      }
      const verification = await verified(
        webAuthn().verifyAuthenticationResponse({
          response: input.response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: passkey.credential_id,
            publicKey: Buffer.from(passkey.public_key, 'base64url'),
            counter: passkey.counter,
            transports: JSON.parse(passkey.transports) as string[],
          },
          requireUserVerification: false,
        }),
      );
      if (!verification.verified) throw unauthorized('The passkey could not be verified');
      return db.transaction().execute(async (trx) => {
        await passkeys.used(trx, passkey.id, verification.authenticationInfo.newCounter, now);
        return deps.startSession(trx, {
          organizationId: passkey.organization_id,
          memberId: passkey.member_id,
          method: 'passkey',
          ...request,
        });
      });
    },
  };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;
