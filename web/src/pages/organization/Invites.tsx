/** Invitations (admins): sent, listed, revoked. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { BusyButton, CopyButton, ErrorMessage, Section, when } from '../../ui';
import { keys } from '../../api/keys';
import { useInvites } from '../../api/queries';
import { FULL_SCOPE, ScopePicker, scopeFor, type Role, type Scope } from './ScopePicker';

const ROLES: Role[] = ['viewer', 'member', 'admin'];

export function Invites() {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [scope, setScope] = useState<Scope>(FULL_SCOPE);
  const invites = useInvites();
  const create = useMutation({
    // The spec puts inviteUrl beside data, not in it.
    mutationFn: async () => {
      const call = api.POST('/api/v1/organization/members', {
        body: { email, role, access: scopeFor(role, scope) },
      });
      const invite = await unwrap(call);
      const { data } = await call;
      return { ...invite, inviteUrl: data!.inviteUrl };
    },
    onSuccess: () => {
      setEmail('');
      setScope(FULL_SCOPE);
      return client.invalidateQueries({ queryKey: keys.invites() });
    },
  });
  const revoke = useMutation({
    mutationFn: (inviteId: string) =>
      unwrap(api.DELETE('/api/v1/organization/invites/{inviteId}', { params: { path: { inviteId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.invites() }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Section title="Invites">
      <form onSubmit={submit} className="inline">
        <label htmlFor="invite-email">E-mail</label>
        <input
          id="invite-email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
        <label htmlFor="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <ScopePicker id="invite-scope" role={role} value={scope} onChange={setScope} />
        <BusyButton type="submit" busy={create.isPending}>
          Invite
        </BusyButton>
      </form>
      {create.data && (
        <div role="status" className="panel">
          <p>
            Share this link with {create.data.email} (no e-mail is sent): <code>{create.data.inviteUrl}</code>
          </p>
          <CopyButton text={create.data.inviteUrl} label="Copy invite link" />
        </div>
      )}
      <ErrorMessage error={create.error ?? revoke.error ?? invites.error} />
      <ul>
        {invites.data?.invites.map((i) => (
          <li key={i.inviteId}>
            {i.email} · {i.role} · expires {when(i.expiresAt)}{' '}
            <button type="button" onClick={() => revoke.mutate(i.inviteId)}>
              Revoke invite for {i.email}
            </button>
          </li>
        ))}
      </ul>
    </Section>
  );
}
