import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { base32 } from '../shared/ids.js';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,64}$/;

// Request ids: a random prefix per process and a counter, unique across instances without a
// random draw per request (which showed in the profile).
const REQUEST_ID_PREFIX = `req_${base32(randomBytes(5))}`;
let requestCounter = 0;

/** A new request id. */
export function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${REQUEST_ID_PREFIX}${requestCounter.toString(36)}`;
}

/** Keeps a caller's X-Request-Id when it is a plain token (to trace across services), else makes one. */
export function genReqId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  if (typeof incoming === 'string' && INCOMING_ID.test(incoming)) return incoming;
  return nextRequestId();
}
