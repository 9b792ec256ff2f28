/** Members and their roles; admins change roles, remove members and issue sign-in links. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { isAdmin, type Session } from '../../session';
import { CopyButton, ErrorMessage, Section, when, HeaderRow } from '../../ui';
import { keys } from '../../api/keys';
import { useMembers, useProjectsPage } from '../../api/queries';
import { ScopePicker, scopeFor, scopeSummary, type Role, type Scope } from './ScopePicker';

const ROLES: Role[] = ['viewer', 'member', 'admin'];

export function Members({ session }: { session: Session }) {
  const client = useQueryClient();
  const admin = isAdmin(session);
  const members = useMembers();
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const [editing, setEditing] = useState<{
    memberId: string;
    email: string;
    role: Role;
    scope: Scope;
  } | null>(null);
  const projects = useProjectsPage('', 0, 100);
  const projectName = (id: string) => projects.data?.projects.find((p) => p.id === id)?.name ?? id;
  const refresh = () => client.invalidateQueries({ queryKey: keys.members() });
  const setRole = useMutation({
    mutationFn: ({ memberId, role }: { memberId: string; role: Role }) =>
      unwrap(
        api.PATCH('/api/v1/organization/members/{memberId}', {
          params: { path: { memberId } },
          body: { role },
        }),
      ),
    onSettled: refresh,
  });
  const setAccess = useMutation({
    mutationFn: ({ memberId, role, scope }: { memberId: string; role: Role; scope: Scope }) =>
      unwrap(
        api.PATCH('/api/v1/organization/members/{memberId}', {
          params: { path: { memberId } },
          body: { access: scopeFor(role, scope) },
        }),
      ),
    onSuccess: () => setEditing(null),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (memberId: string) =>
      unwrap(api.DELETE('/api/v1/organization/members/{memberId}', { params: { path: { memberId } } })),
    onSettled: refresh,
  });
  const signInLink = useMutation({
    mutationFn: ({ memberId }: { memberId: string; email: string }) =>
      unwrap(api.POST('/api/dashboard/sign-in-links', { body: { memberId } })),
    onSuccess: (created, { email }) => setLink({ email, url: created.url }),
  });
  return (
    <Section title="Members">
      <ErrorMessage
        error={members.error ?? setRole.error ?? setAccess.error ?? remove.error ?? signInLink.error}
      />
      <table>
        <thead>
          <HeaderRow columns={['Name', 'E-mail', 'Role', 'Access', 'Last active']} actions={admin} />
        </thead>
        <tbody>
          {members.data?.members.map((m) => (
            <tr key={m.id}>
              <td>{m.name}</td>
              <td>{m.email}</td>
              <td>
                {admin && m.id !== session.member.id ? (
                  <select
                    aria-label={`Role of ${m.email}`}
                    value={m.role}
                    onChange={(e) => setRole.mutate({ memberId: m.id, role: e.target.value as Role })}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  m.role
                )}
              </td>
              <td>{scopeSummary(m.access, projectName)}</td>
              <td>{when(m.lastActive)}</td>
              {admin && (
                <td>
                  {m.id !== session.member.id && (
                    <>
                      {m.role !== 'admin' && (
                        <button
                          type="button"
                          onClick={() =>
                            setEditing({ memberId: m.id, email: m.email, role: m.role, scope: m.access })
                          }
                        >
                          Access of {m.email}
                        </button>
                      )}
                      <button
                        type="button"
                        onClick={() => signInLink.mutate({ memberId: m.id, email: m.email })}
                      >
                        Sign-in link for {m.email}
                      </button>
                      <button
                        type="button"
                        onClick={() => {
                          if (window.confirm(`Remove ${m.email} from the organization?`)) remove.mutate(m.id);
                        }}
                      >
                        Remove {m.email}
                      </button>
                    </>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {editing && (
        <form
          className="panel"
          aria-label={`Access of ${editing.email}`}
          onSubmit={(e) => {
            e.preventDefault();
            setAccess.mutate(editing);
          }}
        >
          <ScopePicker
            id="member-scope"
            role={editing.role}
            value={editing.scope}
            onChange={(scope) => setEditing({ ...editing, scope })}
          />
          <button type="submit" disabled={setAccess.isPending}>
            Save access
          </button>
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      )}
      {link && (
        <div role="status" className="panel">
          <p>
            Sign-in link for {link.email} (works once, for 15 minutes): <code>{link.url}</code>
          </p>
          <CopyButton text={link.url} label="Copy link" />
        </div>
      )}
    </Section>
  );
}
