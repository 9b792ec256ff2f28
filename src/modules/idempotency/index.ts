/** Idempotency-Key: replaying a POST's first response (design.md §11). */
export { createIdempotencyService, type IdempotencyService } from './idempotency.service.js';
