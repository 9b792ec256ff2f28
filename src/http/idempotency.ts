/**
 * The Idempotency-Key header on POSTs (design.md §11), around any route that has a caller: the
 * request is fingerprinted (method, path and query, body) and claimed before its handler runs; its
 * response is stored as it is sent, then replayed with `Idempotent-Replayed: true`. Storage is the
 * idempotency service, given by the composition root.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { invalidField } from '../errors.js';

interface ClaimedKey {
  organizationId: string;
  key: string;
  createdAt: string;
}

interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** The store of keys and responses (src/modules/idempotency). */
export interface IdempotencyStore {
  claim(input: {
    organizationId: string;
    key: string;
    fingerprint: string;
  }): Promise<{ kind: 'run'; createdAt: string } | { kind: 'replay'; response: StoredResponse }>;
  complete(claim: { organizationId: string; key: string }, response: StoredResponse): Promise<void>;
  release(claim: ClaimedKey): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed, until its response is stored. */
    idempotency: ClaimedKey | null;
  }
  interface FastifyContextConfig {
    /** Why this POST cannot honour an Idempotency-Key (its body is read as a stream, …). */
    noIdempotencyKey?: string;
  }
}

const KEY = /^[\x21-\x7e]{1,255}$/;
/** The response headers a replay repeats; the rest (request id, rate limits) are the replay's own. */
const REPLAYED = ['content-type', 'location', 'content-disposition', 'cache-control'];

export function registerIdempotency(app: FastifyInstance, store: IdempotencyStore): void {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || request.caller === null) return;
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw invalidField('Idempotency-Key', 'must be 1..255 visible ASCII characters (a UUID, say)');
    }
    const refusal = request.routeOptions.config.noIdempotencyKey;
    if (refusal !== undefined) throw invalidField('Idempotency-Key', `is not accepted here: ${refusal}`);
    const fingerprint = createHash('sha256')
      .update(`POST ${request.url}\n${JSON.stringify(request.body ?? null)}`)
      .digest('hex');
    const organizationId = request.caller.organizationId;
    const claim = await store.claim({ organizationId, key, fingerprint });
    if (claim.kind === 'replay') {
      const { statusCode, headers, body } = claim.response;
      return reply.code(statusCode).headers(headers).header('Idempotent-Replayed', 'true').send(body);
    }
    request.idempotency = { organizationId, key, createdAt: claim.createdAt };
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (claim === null) return payload;
    request.idempotency = null;
    const status = reply.statusCode;
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    // Worth retrying (a fault, the rate limit, a busy project) or not storable: the key is free again.
    if (status >= 500 || status === 429 || status === 409 || body === null) {
      await store.release(claim);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await store.complete(claim, { statusCode: status, headers, body });
    return payload;
  });
}
