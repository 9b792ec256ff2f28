/**
 * Google's OAuth2 token endpoint as the emulator serves it (stores.md §1.2): the JWT-bearer grant,
 * an RS256 assertion of a registered service account, a short lifetime, the right audience and
 * scope; errors in the RFC 6749 shape.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  compactVerify,
  decodeJwt,
  decodeProtectedHeader,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import type { Faults } from '../faults.js';
import { SCOPE } from './rules.js';
import type { PlayState } from './state.js';

export function registerTokenEndpoint(app: FastifyInstance, state: PlayState, faults: Faults): void {
  app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    scope.post('/token', async (request, reply) => {
      state.counters.tokenRequests += 1;
      const injected = await faults.apply(request, reply);
      if (injected === 'dropped') return reply;
      if (typeof injected === 'number')
        return reply
          .code(injected)
          .send({ error: 'internal_failure', error_description: 'Injected failure' });
      const form = (request.body ?? {}) as Record<string, string>;
      const invalid = (description: string) =>
        reply.code(400).send({ error: 'invalid_grant', error_description: description });
      if (form.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        return reply
          .code(400)
          .send({ error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
      }
      const assertion = form.assertion ?? '';
      let header: ProtectedHeaderParameters;
      let claims: JWTPayload;
      try {
        header = decodeProtectedHeader(assertion);
        claims = decodeJwt(assertion);
      } catch {
        return invalid('Invalid JWT: malformed assertion.');
      }
      const key = state.accounts.get(String(claims.iss));
      if (header.alg !== 'RS256' || key === undefined) return invalid('Invalid JWT Signature.');
      try {
        await compactVerify(assertion, key, { algorithms: ['RS256'] });
      } catch {
        return invalid('Invalid JWT Signature.');
      }
      const nowS = Math.floor(state.now() / 1000);
      const iat = Number(claims.iat);
      const exp = Number(claims.exp);
      const audience = `http://${request.headers.host ?? 'localhost'}/token`;
      if (!(exp > nowS && exp - iat <= 3600 && iat <= nowS + 300)) {
        return invalid(
          'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
        );
      }
      if (claims.aud !== audience) return invalid(`Invalid JWT: audience must be ${audience}.`);
      if (!(typeof claims.scope === 'string' ? claims.scope : '').split(' ').includes(SCOPE))
        return reply.code(400).send({ error: 'invalid_scope', error_description: 'Invalid OAuth scope.' });
      const token = `ya29.${randomBytes(24).toString('base64url')}`;
      state.tokens.set(token, { email: String(claims.iss), expiresAt: state.now() + state.tokenTtl * 1000 });
      return reply.send({ access_token: token, expires_in: state.tokenTtl, token_type: 'Bearer' });
    });
  });
}
