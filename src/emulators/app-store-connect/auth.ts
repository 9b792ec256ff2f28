/** Apple's token rules (stores.md §1.1, §8): ES256, a known key id, the issuer, the audience, ≤ 20 minutes. */
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { AscFailure, NOT_AUTHORIZED } from './errors.js';
import { MAX_TOKEN_LIFETIME_S } from './rules.js';
import type { AppStoreState } from './state.js';

const refused = () => new AscFailure(401, NOT_AUTHORIZED.code, NOT_AUTHORIZED.title, NOT_AUTHORIZED.detail);

/** The key id of a valid bearer token; any failure is Apple's one 401 NOT_AUTHORIZED. */
export async function authenticate(state: AppStoreState, header: string | undefined): Promise<string> {
  const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  if (token === undefined) throw refused();
  try {
    const { alg, kid } = decodeProtectedHeader(token);
    const key = kid === undefined ? undefined : state.keys.get(kid);
    if (alg !== 'ES256' || key === undefined) throw refused();
    const { payload } = await jwtVerify(token, key.publicKey, {
      algorithms: ['ES256'],
      audience: 'appstoreconnect-v1',
      currentDate: new Date(state.now()),
    });
    const nowS = Math.floor(state.now() / 1000);
    const { exp, iat } = payload;
    const valid =
      (payload.iss === key.issuerId || payload.sub === 'user') &&
      exp !== undefined &&
      exp - nowS <= MAX_TOKEN_LIFETIME_S &&
      (iat === undefined || (exp - iat <= MAX_TOKEN_LIFETIME_S && iat <= nowS + 60));
    if (!valid) throw refused();
    return kid!;
  } catch {
    throw refused();
  }
}
