/** Passkeys through @simplewebauthn/browser, against the service's WebAuthn routes. */
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
} from '@simplewebauthn/browser';
import { api, unwrap } from './api/client';

/** The browser's WebAuthn JSON as the API's body type (an open object the server checks field by field). */
const asJson = (response: { id: string; rawId: string; type: string }) =>
  ({ ...response }) as { id: string; rawId: string; type: string; [field: string]: unknown };

export const passkeysSupported = () => typeof window.PublicKeyCredential === 'function';

export async function addPasskey(name?: string) {
  const options = await unwrap(api.POST('/api/dashboard/passkeys/registration/options'));
  const response = await startRegistration({
    optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
  });
  return unwrap(
    api.POST('/api/dashboard/passkeys/registration/verify', {
      body: { response: asJson(response), ...(name !== undefined && name !== '' && { name }) },
    }),
  );
}

export async function signInWithPasskey() {
  const { challengeId, options } = await unwrap(api.POST('/api/dashboard/passkeys/authentication/options'));
  const response = await startAuthentication({
    optionsJSON: options,
  });
  return unwrap(
    api.POST('/api/dashboard/passkeys/authentication/verify', {
      body: { challengeId, response: asJson(response) },
    }),
  );
}
