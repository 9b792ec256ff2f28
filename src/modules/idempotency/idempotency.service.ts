/**
 * Idempotency-Key (design.md §11): the same key with the same request within 24 hours replays the
 * first response; with another request it is IDEMPOTENCY_KEY_REUSED (422); while the first is still
 * running, 409. Keys are per organization. A request that failed in a way worth retrying (5xx,
 * 429, a busy project) releases its key, so the retry runs.
 */
import type { Executor } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { idempotencyRepository as keys } from './idempotency.repository.js';

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A claim older than this is taken to belong to a process that died, and may be taken over. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** What to do with a request that carries a key: run it (then complete or release), or replay. */
export type Claim = { kind: 'run'; createdAt: string } | { kind: 'replay'; response: StoredResponse };

export function createIdempotencyService({ db, clock }: { db: Executor; clock: Clock }) {
  return {
    async claim(input: { organizationId: string; key: string; fingerprint: string }): Promise<Claim> {
      const now = clock.now();
      await keys.removeOlder(
        db,
        input.organizationId,
        new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
      );
      const createdAt = now.toISOString();
      const row = {
        organization_id: input.organizationId,
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
        throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still running; retry later');
      }
      if (existing.fingerprint !== input.fingerprint) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          `This Idempotency-Key was used on ${existing.created_at} for another request (method, path or body differ); use a new key`,
        );
      }
      if (existing.state === 'done' && existing.status_code !== null) {
        return {
          kind: 'replay',
          response: {
            statusCode: existing.status_code,
            headers: JSON.parse(existing.response_headers ?? '{}') as Record<string, string>,
            body: existing.response_body ?? '',
          },
        };
      }
      if (now.getTime() - Date.parse(existing.created_at) >= ABANDONED_AFTER_MS) {
        await keys.release(db, input, existing.created_at);
        if (await keys.claim(db, row)) return { kind: 'run', createdAt };
      }
      throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still running; retry later');
    },

    complete: (claim: { organizationId: string; key: string }, response: StoredResponse) =>
      keys.complete(db, claim, { ...response, headers: JSON.stringify(response.headers) }),

    release: (claim: { organizationId: string; key: string; createdAt: string }) =>
      keys.release(db, claim, claim.createdAt),
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
