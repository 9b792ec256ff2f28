/**
 * The Idempotency-Key header on POSTs (design.md §11), around any route that has a caller: the
 * request is fingerprinted (method, path and query, body) and claimed, under its caller, before its
 * handler runs; its response is stored as it is sent, then replayed with `Idempotent-Replayed:
 * true` once the caller's current role is checked again. Storage is the idempotency service, given
 * by the composition root.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forbidden, invalidField } from '../errors.js';
import { isOperation, OPERATIONS, type Caller } from '../modules/access/index.js';

interface KeyOwner {
  organizationId: string;
  caller: string;
  key: string;
}

interface ClaimedKey extends KeyOwner {
  createdAt: string;
}

interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** The store of keys and responses (src/modules/idempotency). */
export interface IdempotencyStore {
  claim(
    input: KeyOwner & { fingerprint: string },
  ): Promise<{ kind: 'run'; createdAt: string } | { kind: 'replay'; response: StoredResponse }>;
  complete(claim: KeyOwner, response: StoredResponse): Promise<void>;
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

  // Most requests carry no key: they pass both hooks without a promise (see claim and keep).
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST' || request.headers['idempotency-key'] === undefined) return done();
    claim(request, reply).then(() => done(), done);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.idempotency === null) return done(null, payload);
    keep(request, reply, payload).then(() => done(null, payload), done);
  });

  /** Claims the request's key, or replays the response stored under it. */
  async function claim(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = request.headers['idempotency-key'];
    if (key === undefined || request.caller === null) return;
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw invalidField('Idempotency-Key', 'must be 1..255 visible ASCII characters (a UUID, say)');
    }
    const refusal = request.routeOptions.config.noIdempotencyKey;
    if (refusal !== undefined) throw invalidField('Idempotency-Key', `is not accepted here: ${refusal}`);
    const fingerprint = createHash('sha256')
      .update(`POST ${request.url}\n${JSON.stringify(request.body ?? null)}`)
      .digest('hex');
    const owner = { organizationId: request.caller.organizationId, caller: ownerOf(request.caller), key };
    const claimed = await store.claim({ ...owner, fingerprint });
    if (claimed.kind === 'replay') {
      checkRole(request);
      const { statusCode, headers, body } = claimed.response;
      reply.code(statusCode).headers(headers).header('Idempotent-Replayed', 'true').send(body);
      return;
    }
    request.idempotency = { ...owner, createdAt: claimed.createdAt };
  }

  /** Stores the response under the claimed key, or frees the key when the response is not worth keeping. */
  async function keep(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    const claim = request.idempotency!;
    request.idempotency = null;
    const status = reply.statusCode;
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    // Worth retrying (a fault, the rate limit, a busy project) or not storable: the key is free again.
    if (status >= 500 || status === 429 || status === 409 || body === null) {
      await store.release(claim);
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await store.complete(claim, { statusCode: status, headers, body });
  }
}

/** Whose key it is: the API key of the request, or the member a dashboard session signed in. */
const ownerOf = ({ principal }: Caller): string =>
  principal.keyId !== null ? `key:${principal.keyId}` : `member:${principal.memberId}`;

/** A replay answers only a caller whose role may still perform the operation (its role can have changed). */
function checkRole(request: FastifyRequest): void {
  const operation = request.routeOptions.schema?.operationId;
  if (operation === undefined || !isOperation(operation)) return;
  const access = OPERATIONS[operation];
  const role = request.caller!.principal.role;
  if (Array.isArray(access) && !access.includes(role)) {
    throw forbidden(`The ${role} role may not perform ${operation}`);
  }
}
