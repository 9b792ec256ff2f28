import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { navigate } from '../router';
import { useSignedIn } from '../session';
import { BusyButton, ErrorMessage, when } from '../ui';
import { addPasskey, passkeysSupported } from '../webauthn';
import { keys } from '../api/keys';

export function Invite({ inviteId }: { inviteId: string }) {
  const [name, setName] = useState('');
  const signedIn = useSignedIn(['invite', inviteId]);
  const invite = useQuery({
    queryKey: keys.invite(inviteId),
    queryFn: () => unwrap(api.GET('/api/dashboard/invites/{inviteId}', { params: { path: { inviteId } } })),
    retry: false,
    // Read once: accepting uses it up, and asked for again it would answer 409.
    staleTime: Infinity,
  });
  // The organization's name travels with the mutation: the invite itself is used up once accepted.
  const accept = useMutation({
    mutationFn: (_organizationName: string) =>
      unwrap(
        api.POST('/api/dashboard/invites/{inviteId}/accept', {
          params: { path: { inviteId } },
          body: { name },
        }),
      ),
    onSuccess: () => signedIn(),
  });
  const passkey = useMutation({ mutationFn: () => addPasskey() });

  if (accept.isSuccess) {
    return (
      <main id="main" className="narrow">
        <h1>Welcome to {accept.variables}</h1>
        <p>You are signed in as {accept.data.member.email}.</p>
        {passkeysSupported() && !passkey.isSuccess && (
          <section aria-label="Passkey">
            <p>Add a passkey to sign in again later with this device, without a key or a link.</p>
            <BusyButton type="button" busy={passkey.isPending} onClick={() => passkey.mutate()}>
              Add a passkey
            </BusyButton>
            <ErrorMessage error={passkey.error} />
          </section>
        )}
        {passkey.isSuccess && <p role="status">Passkey added.</p>}
        <button type="button" onClick={() => navigate('/projects')}>
          Continue to the projects
        </button>
      </main>
    );
  }
  if (invite.isPending) return <p className="loading">Loading…</p>;
  if (invite.error) {
    return (
      <main id="main" className="narrow">
        <h1>This invite cannot be used</h1>
        <ErrorMessage error={invite.error} />
      </main>
    );
  }
  const data = invite.data;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate(data.organizationName);
  };
  return (
    <main id="main" className="narrow">
      <h1>Join {data.organizationName}</h1>
      <dl>
        <dt>Organization</dt>
        <dd>{data.organizationName}</dd>
        <dt>Role offered</dt>
        <dd>{data.role}</dd>
        <dt>E-mail</dt>
        <dd>{data.email}</dd>
        <dt>Expires</dt>
        <dd>{when(data.expiresAt)}</dd>
      </dl>
      <form onSubmit={submit}>
        <label htmlFor="name">Name</label>
        <input id="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        <BusyButton type="submit" busy={accept.isPending}>
          Accept
        </BusyButton>
        <ErrorMessage error={accept.error} />
      </form>
    </main>
  );
}
