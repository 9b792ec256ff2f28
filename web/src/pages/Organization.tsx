import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { isAdmin, type Session } from '../session';
import { ErrorMessage, Section } from '../ui';
import { keys } from '../api/keys';
import { Settings } from './organization/Settings';
import { Members } from './organization/Members';
import { Invites } from './organization/Invites';
import { ApiKeys } from './organization/ApiKeys';
import { Credentials } from './organization/Credentials';
import { AuditLog } from './organization/AuditLog';
import { useOrganization } from '../api/queries';
import { Link } from '../router';

export function Organization({ session }: { session: Session }) {
  const admin = isAdmin(session);
  const [requests, setRequests] = useState<{ used: number; limit: number } | null>(null);
  const organization = useOrganization();
  const usage = useQuery({
    queryKey: keys.usage(),
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
      <nav aria-label="Organization settings" className="subnav">
        {admin && <Link href="/organization/webhooks">Webhooks</Link>}
        <Link href="/organization/translation">
          Translation settings (DeepL, glossaries, protected terms)
        </Link>
      </nav>
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
