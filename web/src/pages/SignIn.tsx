import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { navigate } from '../router';
import { useSignedIn } from '../session';
import { BusyButton, ErrorMessage } from '../ui';
import { passkeysSupported, signInWithPasskey } from '../webauthn';

/** Where to go after signing in: the page that sent the person here, if it is one of ours. */
function next(): string {
  const target = new URLSearchParams(location.search).get('next');
  return target !== null && target.startsWith('/') && !target.startsWith('//') ? target : '/projects';
}

export function SignIn() {
  const [apiKey, setApiKey] = useState('');
  const signedIn = useSignedIn();
  const withKey = useMutation({
    mutationFn: () => unwrap(api.POST('/api/dashboard/session', { body: { apiKey } })),
    onSuccess: async () => {
      await signedIn();
      navigate(next(), { replace: true });
    },
  });
  const withPasskey = useMutation({
    mutationFn: signInWithPasskey,
    onSuccess: async () => {
      await signedIn();
      navigate(next(), { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    withKey.mutate();
  };
  return (
    <main id="main" className="narrow">
      <h1>Sign in to appmeta</h1>
      {passkeysSupported() && (
        <section aria-label="Passkey">
          <BusyButton type="button" busy={withPasskey.isPending} onClick={() => withPasskey.mutate()}>
            Sign in with a passkey
          </BusyButton>
          <ErrorMessage error={withPasskey.error} />
        </section>
      )}
      <form onSubmit={submit} aria-label="Sign in with an API key">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          required
        />
        <BusyButton type="submit" busy={withKey.isPending}>
          Sign in
        </BusyButton>
        <ErrorMessage error={withKey.error} />
      </form>
      <p className="hint">
        No key and no passkey? Ask an admin for a sign-in link (Organization → Members), or the operator for{' '}
        <code>appmeta login-link --email you@example.com</code>.
      </p>
    </main>
  );
}

/**
 * A one-time sign-in link. It is redeemed by a button, not on page load, so that a chat app
 * previewing the link does not use it up.
 */
export function RedeemLink({ token }: { token: string }) {
  const signedIn = useSignedIn();
  const redeem = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/dashboard/sign-in-links/{token}/redeem', { params: { path: { token } } })),
    onSuccess: async () => {
      await signedIn();
      navigate('/account?welcome=1', { replace: true });
    },
  });
  return (
    <main id="main" className="narrow">
      <h1>Sign in to appmeta</h1>
      <p>This link signs you in once. It works for 15 minutes after it was made.</p>
      <BusyButton type="button" busy={redeem.isPending} onClick={() => redeem.mutate()}>
        Continue
      </BusyButton>
      <ErrorMessage error={redeem.error} />
    </main>
  );
}
