import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { navigate } from '../router';
import type { Session } from '../session';
import { BusyButton, ErrorMessage, OneFieldForm, Section, when, HeaderRow } from '../ui';
import { addPasskey, passkeysSupported } from '../webauthn';
import { keys } from '../api/keys';
import { usePasskeys, useSessions } from '../api/queries';

export function Account({ session }: { session: Session }) {
  const client = useQueryClient();
  const welcome = new URLSearchParams(location.search).has('welcome');
  const sessions = useSessions();
  const passkeys = usePasskeys();
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: () => addPasskey(name),
    onSuccess: () => {
      setName('');
      return client.invalidateQueries({ queryKey: keys.passkeys() });
    },
  });
  const removePasskey = useMutation({
    mutationFn: (passkeyId: string) =>
      unwrap(api.DELETE('/api/dashboard/passkeys/{passkeyId}', { params: { path: { passkeyId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.passkeys() }),
  });
  const endOne = useMutation({
    mutationFn: (sessionId: string) =>
      unwrap(api.DELETE('/api/dashboard/sessions/{sessionId}', { params: { path: { sessionId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.sessions() }),
  });
  const endAll = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/dashboard/sessions')),
    onSettled: () => {
      client.clear();
      navigate('/sign-in');
    },
  });

  return (
    <>
      <h1>Account</h1>
      <p>
        {session.member.name} &lt;{session.member.email}&gt; · {session.role} in {session.organization.name}
      </p>
      {welcome && (
        <p role="status">You are signed in. Add a passkey below to sign in next time without a link.</p>
      )}
      <Section title="Passkeys">
        <ErrorMessage error={passkeys.error} />
        {passkeys.data && passkeys.data.passkeys.length === 0 && <p>No passkey yet.</p>}
        <ul>
          {passkeys.data?.passkeys.map((p) => (
            <li key={p.id}>
              {p.name} · added {when(p.createdAt)} · last used {when(p.lastUsedAt)}{' '}
              <button
                type="button"
                onClick={() => removePasskey.mutate(p.id)}
                disabled={removePasskey.isPending}
              >
                Remove passkey {p.name}
              </button>
            </li>
          ))}
        </ul>
        {passkeysSupported() && (
          <OneFieldForm
            id="passkey-name"
            label="Passkey name"
            submitLabel="Add a passkey"
            busy={add.isPending}
            onSubmit={() => add.mutate()}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="This laptop"
            maxLength={200}
          />
        )}
        <ErrorMessage error={add.error ?? removePasskey.error} />
      </Section>
      <Section title="Signed-in devices">
        <ErrorMessage error={sessions.error} />
        <table>
          <thead>
            <HeaderRow columns={['Device', 'Signed in', 'Last seen', 'How']} actions />
          </thead>
          <tbody>
            {sessions.data?.sessions.map((s) => (
              <tr key={s.id}>
                <td>
                  {s.userAgent ?? 'unknown'}
                  {s.current && ' (this device)'}
                </td>
                <td>{when(s.createdAt)}</td>
                <td>{when(s.lastSeenAt)}</td>
                <td>{s.method}</td>
                <td>
                  {!s.current && (
                    <button type="button" onClick={() => endOne.mutate(s.id)} disabled={endOne.isPending}>
                      Sign out this device
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <BusyButton type="button" busy={endAll.isPending} onClick={() => endAll.mutate()}>
          Sign out everywhere
        </BusyButton>
        <ErrorMessage error={endOne.error ?? endAll.error} />
      </Section>
    </>
  );
}
