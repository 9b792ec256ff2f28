/**
 * Webhooks (admins, design.md §11): endpoints that receive the organization's events — add one and
 * keep its secret, send a test, read each delivery's attempts and send one again, rotate the
 * secret, pause or resume, remove.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { EVENT_TYPES } from '../../../../src/shared/events';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import { useWebhookDeliveries, useWebhooks } from '../../api/queries';
import { plainStatus } from '../../plain-words';
import { Link } from '../../router';
import { BusyButton, CopyButton, ErrorMessage, HeaderRow, Section, when } from '../../ui';

type Webhook = NonNullable<ReturnType<typeof useWebhooks>['data']>['webhooks'][number];

/** A secret shown once, right after it was made. */
function SecretOnce({ secret }: { secret: string }) {
  return (
    <div role="status" className="secret">
      <p>
        The signing secret, shown this once — keep it where your endpoint can read it to check each request’s
        signature:
      </p>
      <code>{secret}</code> <CopyButton text={secret} label="Copy secret" />
    </div>
  );
}

function NewWebhook() {
  const client = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/organization/webhooks', { body: { url, description, events } })),
    onSuccess: () => {
      setUrl('');
      setDescription('');
      setEvents([]);
      return client.invalidateQueries({ queryKey: keys.webhooks() });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Add a webhook">
      <label htmlFor="webhook-url">Endpoint URL</label>
      <input
        id="webhook-url"
        type="url"
        required
        placeholder="https://example.com/appmeta-events"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
      />
      <label htmlFor="webhook-description">Description (optional)</label>
      <input id="webhook-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <fieldset>
        <legend>Events (none ticked: every event)</legend>
        <div className="checks">
          {EVENT_TYPES.map((type) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) =>
                  setEvents(e.target.checked ? [...events, type] : events.filter((t) => t !== type))
                }
              />
              {type}
            </label>
          ))}
        </div>
      </fieldset>
      <BusyButton type="submit" busy={create.isPending} busyLabel="Adding…">
        Add webhook
      </BusyButton>
      <ErrorMessage error={create.error} />
      {create.data && <SecretOnce secret={create.data.secret} />}
    </form>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const client = useQueryClient();
  const deliveries = useWebhookDeliveries(webhookId);
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap(
        api.POST('/api/v1/organization/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { webhookId, deliveryId } },
        }),
      ),
    onSettled: () => client.invalidateQueries({ queryKey: keys.webhookDeliveries(webhookId) }),
  });
  if (deliveries.isPending) return <p className="loading">Loading deliveries…</p>;
  if (deliveries.error) return <ErrorMessage error={deliveries.error} />;
  const list = deliveries.data.deliveries;
  if (list.length === 0) return <p>No deliveries yet.</p>;
  return (
    <>
      <div className="table-scroll">
        <table aria-label="Deliveries">
          <thead>
            <HeaderRow columns={['Event', 'Status', 'Attempts', 'Last answer', 'When']} actions />
          </thead>
          <tbody>
            {list.map((delivery) => {
              const last = delivery.attempts.at(-1);
              return (
                <tr key={delivery.id}>
                  <td>{delivery.eventType}</td>
                  <td className={`state state-${delivery.status}`}>{plainStatus(delivery.status)}</td>
                  <td>{delivery.attemptCount}</td>
                  <td>
                    {last === undefined
                      ? '—'
                      : last.status !== null
                        ? `HTTP ${last.status} in ${last.durationMs} ms`
                        : (last.error ?? 'no answer')}
                  </td>
                  <td>{when(last?.at ?? delivery.createdAt)}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() => redeliver.mutate(delivery.id)}
                      aria-label={`Send ${delivery.eventType} of ${when(delivery.createdAt)} again`}
                    >
                      Send again
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorMessage error={redeliver.error} />
      {redeliver.isSuccess && <p role="status">Queued to send again.</p>}
    </>
  );
}

function WebhookCard({ webhook }: { webhook: Webhook }) {
  const client = useQueryClient();
  const [showDeliveries, setShowDeliveries] = useState(false);
  const path = { params: { path: { webhookId: webhook.id } } };
  const refresh = () => client.invalidateQueries({ queryKey: keys.webhooks() });
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/organization/webhooks/{webhookId}/test', path)),
    onSuccess: () => {
      setShowDeliveries(true);
      return client.invalidateQueries({ queryKey: keys.webhookDeliveries(webhook.id) });
    },
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/organization/webhooks/{webhookId}/rotate-secret', path)),
    onSuccess: refresh,
  });
  const toggle = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/organization/webhooks/{webhookId}', {
          ...path,
          body: { enabled: !webhook.enabled },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/organization/webhooks/{webhookId}', path)),
    onSuccess: refresh,
  });
  const name = webhook.description || webhook.url;
  return (
    <li className="card" aria-label={name}>
      <h3>{name}</h3>
      <dl className="facts">
        <dt>URL</dt>
        <dd>{webhook.url}</dd>
        <dt>Events</dt>
        <dd>{webhook.events.length === 0 ? 'every event' : webhook.events.join(', ')}</dd>
        <dt>State</dt>
        <dd>
          {webhook.enabled
            ? 'Sending'
            : `Paused${webhook.disabledReason ? `: ${webhook.disabledReason}` : ''}`}
          {webhook.failingSince !== null && ` · failing since ${when(webhook.failingSince)}`}
        </dd>
        {webhook.previousSecretExpiresAt !== null && (
          <>
            <dt>Previous secret</dt>
            <dd>still accepted until {when(webhook.previousSecretExpiresAt)}</dd>
          </>
        )}
      </dl>
      <p className="actions">
        <BusyButton type="button" busy={test.isPending} busyLabel="Sending…" onClick={() => test.mutate()}>
          Send a test event
        </BusyButton>
        <button
          type="button"
          aria-expanded={showDeliveries}
          onClick={() => setShowDeliveries(!showDeliveries)}
        >
          {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <BusyButton type="button" busy={rotate.isPending} onClick={() => rotate.mutate()}>
          Rotate secret
        </BusyButton>
        <BusyButton type="button" busy={toggle.isPending} onClick={() => toggle.mutate()}>
          {webhook.enabled ? 'Pause' : 'Resume'}
        </BusyButton>
        <BusyButton
          type="button"
          busy={remove.isPending}
          onClick={() => {
            if (confirm(`Remove the webhook ${name}? Its deliveries go with it.`)) remove.mutate();
          }}
        >
          Remove
        </BusyButton>
      </p>
      {test.isSuccess && <p role="status">Test event queued: see it under the deliveries.</p>}
      {rotate.data && <SecretOnce secret={rotate.data.secret} />}
      <ErrorMessage error={test.error ?? rotate.error ?? toggle.error ?? remove.error} />
      {showDeliveries && <Deliveries webhookId={webhook.id} />}
    </li>
  );
}

export function WebhooksPage() {
  const webhooks = useWebhooks();
  return (
    <>
      <p>
        <Link href="/organization">← Organization</Link>
      </p>
      <h1>Webhooks</h1>
      <p>
        Each event is sent as a signed POST (Standard Webhooks headers); a failing endpoint is retried, and
        paused after failing for too long.
      </p>
      <ErrorMessage error={webhooks.error} />
      {webhooks.data && (
        <Section title="Endpoints">
          {webhooks.data.webhooks.length === 0 ? (
            <p>No webhooks yet.</p>
          ) : (
            <ul className="cards">
              {webhooks.data.webhooks.map((webhook) => (
                <WebhookCard key={webhook.id} webhook={webhook} />
              ))}
            </ul>
          )}
        </Section>
      )}
      <Section title="Add a webhook">
        <NewWebhook />
      </Section>
    </>
  );
}
