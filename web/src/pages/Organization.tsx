import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { isAdmin, type Session } from '../session';
import { BusyButton, CopyButton, ErrorMessage, OneFieldForm, Section, when } from '../ui';

type Role = 'admin' | 'member' | 'viewer';
const ROLES: Role[] = ['viewer', 'member', 'admin'];

export function Organization({ session }: { session: Session }) {
  const admin = isAdmin(session);
  const [requests, setRequests] = useState<{ used: number; limit: number } | null>(null);
  const organization = useQuery({
    queryKey: ['organization'],
    queryFn: () => unwrap(api.GET('/api/v1/organization')),
  });
  const usage = useQuery({
    queryKey: ['usage'],
    queryFn: async () => {
      const call = api.GET('/api/v1/organization/usage');
      const { response } = await call;
      const limit = Number(response.headers.get('X-RateLimit-Limit'));
      const remaining = Number(response.headers.get('X-RateLimit-Remaining'));
      if (Number.isFinite(limit) && Number.isFinite(remaining))
        setRequests({ used: limit - remaining, limit });
      return unwrap(call);
    },
  });
  if (organization.isPending) return <p className="loading">Loading…</p>;
  if (organization.error) return <ErrorMessage error={organization.error} />;
  const org = organization.data;
  const limit = (n: number | null) => (n === null ? 'unlimited' : String(n));
  return (
    <>
      <h1>Organization</h1>
      <Section title="Plan and usage">
        {usage.data && (
          <dl className="facts">
            <dt>Plan</dt>
            <dd>{usage.data.plan}</dd>
            <dt>Projects</dt>
            <dd>
              {usage.data.projects.used} of {limit(usage.data.projects.limit)}
            </dd>
            <dt>Seats (members and pending invites)</dt>
            <dd>
              {usage.data.seats.used} of {limit(usage.data.seats.limit)}
            </dd>
            <dt>Requests this minute</dt>
            <dd>
              {requests ? `${requests.used} of ${requests.limit}` : `of ${usage.data.requestsPerMinute}`}
            </dd>
          </dl>
        )}
        <ErrorMessage error={usage.error} />
      </Section>
      <Settings org={org} admin={admin} />
      <Members session={session} />
      {admin && <Invites />}
      <ApiKeys />
      {admin && <Credentials />}
      {admin && <AuditLog />}
    </>
  );
}

type Org = paths['/api/v1/organization']['get']['responses'][200]['content']['application/json']['data'];

function Settings({ org, admin }: { org: Org; admin: boolean }) {
  const client = useQueryClient();
  const [name, setName] = useState(org.name);
  const [requireApproval, setRequireApproval] = useState(org.settings.requireApproval);
  const [domains, setDomains] = useState(org.settings.allowedDomains.join(', '));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/organization', {
          body: {
            name,
            settings: {
              requireApproval,
              allowedDomains: domains
                .split(',')
                .map((d) => d.trim())
                .filter(Boolean),
            },
          },
        }),
      ),
    onSuccess: () => client.invalidateQueries(),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Section title="Settings">
      <form onSubmit={submit}>
        <fieldset disabled={!admin}>
          <label htmlFor="org-name">Organization name</label>
          <input
            id="org-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={200}
          />
          <label className="check">
            <input
              type="checkbox"
              checked={requireApproval}
              onChange={(e) => setRequireApproval(e.target.checked)}
            />
            Require an admin’s approval before a push
          </label>
          <label htmlFor="org-domains">Allowed e-mail domains (comma separated; empty: any)</label>
          <input id="org-domains" value={domains} onChange={(e) => setDomains(e.target.value)} />
          {admin && (
            <BusyButton type="submit" busy={save.isPending}>
              Save
            </BusyButton>
          )}
        </fieldset>
        {save.isSuccess && <p role="status">Saved.</p>}
        <ErrorMessage error={save.error} />
      </form>
    </Section>
  );
}

function Members({ session }: { session: Session }) {
  const client = useQueryClient();
  const admin = isAdmin(session);
  const members = useQuery({
    queryKey: ['members'],
    queryFn: () => unwrap(api.GET('/api/v1/organization/members')),
  });
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: ['members'] });
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
      <ErrorMessage error={members.error ?? setRole.error ?? remove.error ?? signInLink.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Last active</th>
            {admin && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
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
              <td>{when(m.lastActive)}</td>
              {admin && (
                <td>
                  {m.id !== session.member.id && (
                    <>
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

function Invites() {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const invites = useQuery({
    queryKey: ['invites'],
    queryFn: () => unwrap(api.GET('/api/v1/organization/invites')),
  });
  const create = useMutation({
    // The spec puts inviteUrl beside data, not in it.
    mutationFn: async () => {
      const call = api.POST('/api/v1/organization/members', { body: { email, role } });
      const invite = await unwrap(call);
      const { data } = await call;
      return { ...invite, inviteUrl: data!.inviteUrl };
    },
    onSuccess: () => {
      setEmail('');
      return client.invalidateQueries({ queryKey: ['invites'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (inviteId: string) =>
      unwrap(api.DELETE('/api/v1/organization/invites/{inviteId}', { params: { path: { inviteId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: ['invites'] }),
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

function ApiKeys() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => unwrap(api.GET('/api/v1/api-keys')) });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/api-keys', { body: { name } })),
    onSuccess: () => {
      setName('');
      return client.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) =>
      unwrap(api.DELETE('/api/v1/api-keys/{keyId}', { params: { path: { keyId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  return (
    <Section title="Your API keys">
      <OneFieldForm
        id="key-name"
        label="Key name"
        submitLabel="Create API key"
        busy={create.isPending}
        onSubmit={() => create.mutate()}
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        maxLength={100}
      />
      {create.data && (
        <div role="status" className="panel">
          <p>
            Your new key, shown once — store it now: <code>{create.data.apiKey}</code>
          </p>
          <CopyButton text={create.data.apiKey} label="Copy key" />
        </div>
      )}
      <ErrorMessage error={create.error ?? revoke.error ?? keys.error} />
      <ul>
        {keys.data?.keys.map((k) => (
          <li key={k.id}>
            {k.name} · {k.prefix}… · last used {when(k.lastUsedAt)}{' '}
            <button type="button" onClick={() => revoke.mutate(k.id)}>
              Revoke key {k.name}
            </button>
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Credentials() {
  const client = useQueryClient();
  const credentials = useQuery({
    queryKey: ['credentials'],
    queryFn: () => unwrap(api.GET('/api/v1/organization/credentials')),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['credentials'] });
  const [issuerId, setIssuerId] = useState('');
  const [keyId, setKeyId] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [serviceAccount, setServiceAccount] = useState('');
  const setAppStore = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/v1/organization/credentials/appstore', { body: { issuerId, keyId, privateKey } })),
    onSuccess: () => {
      setPrivateKey('');
      return refresh();
    },
  });
  const setPlayStore = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/v1/organization/credentials/playstore', { body: { serviceAccount } })),
    onSuccess: () => {
      setServiceAccount('');
      return refresh();
    },
  });
  const verify = useMutation({
    mutationFn: (store: 'appstore' | 'playstore') =>
      unwrap(api.POST('/api/v1/organization/credentials/{store}/verify', { params: { path: { store } } })),
  });
  const readFile = (set: (text: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    void event.target.files?.[0]?.text().then(set);
  };
  const configured = (store: string) =>
    credentials.data?.credentials.find((c) => c.store === store)?.configured;
  return (
    <Section title="Store credentials">
      <p>Stored encrypted; never shown again after upload.</p>
      <ErrorMessage error={credentials.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setAppStore.mutate();
        }}
        aria-label="App Store Connect API key"
      >
        <h3>App Store Connect {configured('appstore') ? '(configured)' : '(not set)'}</h3>
        <label htmlFor="issuer-id">Issuer ID</label>
        <input id="issuer-id" value={issuerId} onChange={(e) => setIssuerId(e.target.value)} required />
        <label htmlFor="key-id">Key ID</label>
        <input id="key-id" value={keyId} onChange={(e) => setKeyId(e.target.value)} required />
        <label htmlFor="p8">Private key (.p8 file)</label>
        <input id="p8" type="file" accept=".p8" onChange={readFile(setPrivateKey)} />
        <BusyButton type="submit" busy={setAppStore.isPending} disabled={privateKey === ''}>
          Upload App Store key
        </BusyButton>
        {configured('appstore') && (
          <button type="button" onClick={() => verify.mutate('appstore')}>
            Verify App Store key
          </button>
        )}
        <ErrorMessage error={setAppStore.error} />
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setPlayStore.mutate();
        }}
        aria-label="Google Play service account"
      >
        <h3>Google Play {configured('playstore') ? '(configured)' : '(not set)'}</h3>
        <label htmlFor="service-account">Service account key (.json file)</label>
        <input id="service-account" type="file" accept=".json" onChange={readFile(setServiceAccount)} />
        <BusyButton type="submit" busy={setPlayStore.isPending} disabled={serviceAccount === ''}>
          Upload Google Play key
        </BusyButton>
        {configured('playstore') && (
          <button type="button" onClick={() => verify.mutate('playstore')}>
            Verify Google Play key
          </button>
        )}
        <ErrorMessage error={setPlayStore.error} />
      </form>
      {verify.data && (
        <p role="status">
          {verify.data.verified
            ? 'The store accepted the key.'
            : `The store refused the key: ${verify.data.error?.message ?? ''}`}
        </p>
      )}
      <ErrorMessage error={verify.error} />
    </Section>
  );
}

function AuditLog() {
  const [offset, setOffset] = useState(0);
  const log = useQuery({
    queryKey: ['audit', offset],
    queryFn: () =>
      unwrap(api.GET('/api/v1/organization/audit-log', { params: { query: { limit: 20, offset } } })),
  });
  return (
    <Section title="Audit log">
      <ErrorMessage error={log.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
          </tr>
        </thead>
        <tbody>
          {log.data?.entries.map((e) => (
            <tr key={e.id}>
              <td>{when(e.createdAt)}</td>
              <td>{e.actor.operator ?? e.actor.memberId ?? '—'}</td>
              <td>{e.action}</td>
              <td>
                {e.target.type} {e.target.id}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav aria-label="Audit log pages" className="pager">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - 20))}>
          Newer
        </button>
        <button
          type="button"
          disabled={!log.data || offset + 20 >= log.data.total}
          onClick={() => setOffset(offset + 20)}
        >
          Older
        </button>
      </nav>
    </Section>
  );
}
