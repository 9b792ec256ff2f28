/** Idempotency-Key: replaying a POST's first response (design.md §11). */
export {
  createIdempotencyService,
  IDEMPOTENCY_WINDOW_MS,
  type Claim,
  type IdempotencyService,
  type StoredResponse,
} from './idempotency.service.js';
