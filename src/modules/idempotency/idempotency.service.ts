/**
 * Idempotency-Key (design.md §11): the same key with the same request within 24 hours replays the
 * first response; with another request it is IDEMPOTENCY_KEY_REUSED (422); while the first is still
 * running, 409. A key belongs to its caller — the API key, or the member signed in by a session —
 * so another caller's identical key is unrelated. Responses are stored sealed with the credentials
 * key ring, since some carry a one-time secret (an API key, a sign-in link, a webhook secret) that
 * a replay must give back to the caller who lost it. A request that failed in a way worth retrying
 * (5xx, 429, a busy project) releases its key, so the retry runs.
 */
import type { Executor } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import type { KeyRing, Sealed } from '../../shared/key-ring.js';
import { idempotencyRepository as keys } from './idempotency.repository.js';

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A claim older than this is taken to belong to a process that died, and may be taken over. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Whose key: the organization and `key:<apiKeyId>` or `member:<memberId>` (a session). */
export interface KeyOwner {
  organizationId: string;
  caller: string;
  key: string;
}

/** What to do with a request that carries a key: run it (then complete or release), or replay. */
export type Claim = { kind: 'run'; createdAt: string } | { kind: 'replay'; response: StoredResponse };

const STILL_RUNNING = 'A request with this Idempotency-Key is still running; retry later';
const sealContext = ({ organizationId, caller, key }: KeyOwner) =>
  `idempotency:${organizationId}:${caller}:${key}`;

export function createIdempotencyService({
  db,
  clock,
  keyRing,
}: {
  db: Executor;
  clock: Clock;
  keyRing: KeyRing;
}) {
  function storedResponse(owner: KeyOwner, statusCode: number, headers: string | null, body: string | null) {
    let plaintext: string;
    try {
      plaintext = body === null ? '' : keyRing.open(JSON.parse(body) as Sealed, sealContext(owner));
    } catch {
      // Sealed under a key no longer configured (rotated away): never run the request twice.
      throw new AppError(
        'CONFLICT',
        'The first response to this Idempotency-Key can no longer be read (the secret key was rotated); check the outcome, then use a new key',
      );
    }
    return { statusCode, headers: JSON.parse(headers ?? '{}') as Record<string, string>, body: plaintext };
  }

  return {
    async claim(input: KeyOwner & { fingerprint: string }): Promise<Claim> {
      const now = clock.now();
      await keys.removeOlder(
        db,
        input.organizationId,
        new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
      );
      const createdAt = now.toISOString();
      const row = {
        organization_id: input.organizationId,
        caller: input.caller,
        key: input.key,
        fingerprint: input.fingerprint,
        state: 'running',
        status_code: null,
        response_headers: null,
        response_body: null,
        created_at: createdAt,
      };
      if (await keys.claim(db, row)) return { kind: 'run', createdAt };
      const existing = await keys.find(db, input);
      if (existing === undefined) {
        // Released between the two statements: claim it again, once.
        if (await keys.claim(db, row)) return { kind: 'run', createdAt };
        throw new AppError('CONFLICT', STILL_RUNNING);
      }
      if (existing.fingerprint !== input.fingerprint) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          `This Idempotency-Key was used on ${existing.created_at} for another request (method, path or body differ); use a new key`,
        );
      }
      if (existing.state === 'done' && existing.status_code !== null) {
        const response = storedResponse(
          input,
          existing.status_code,
          existing.response_headers,
          existing.response_body,
        );
        return { kind: 'replay', response };
      }
      if (now.getTime() - Date.parse(existing.created_at) >= ABANDONED_AFTER_MS) {
        await keys.release(db, input, existing.created_at);
        if (await keys.claim(db, row)) return { kind: 'run', createdAt };
      }
      throw new AppError('CONFLICT', STILL_RUNNING);
    },

    complete: (owner: KeyOwner, response: StoredResponse) =>
      keys.complete(db, owner, {
        statusCode: response.statusCode,
        headers: JSON.stringify(response.headers),
        body: JSON.stringify(keyRing.seal(response.body, sealContext(owner))),
      }),

    release: (claim: KeyOwner & { createdAt: string }) => keys.release(db, claim, claim.createdAt),
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
