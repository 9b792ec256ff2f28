/** Google's error bodies (stores.md §6) as the emulator answers them. */
import type { FastifyReply } from 'fastify';

export class PlayFailure extends Error {
  constructor(
    readonly status: number,
    readonly statusText: string,
    message: string,
    readonly reason: string,
    readonly domain = 'global',
  ) {
    super(message);
  }
}

export const sendFailure = (reply: FastifyReply, failure: PlayFailure) =>
  reply
    .code(failure.status)
    .type('application/json')
    .send({
      error: {
        code: failure.status,
        message: failure.message,
        errors: [{ message: failure.message, domain: failure.domain, reason: failure.reason }],
        status: failure.statusText,
      },
    });
