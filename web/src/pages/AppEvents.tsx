/**
 * App Store in-app events of a project (design.md §18): a table of events × locales with each
 * event's badge, state and schedule, and for an event and a locale its name, short and long
 * description with live counters. An event App Store Connect no longer takes changes to (in
 * review, published) is read-only with the reason.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useAppEvent, useAppEvents } from '../api/queries';
import { plainState } from '../plain-words';
import { Link } from '../router';
import { canEdit, scopeNote, type Session } from '../session';
import { ErrorMessage, ScopeNote, Section } from '../ui';
import { TextsForm } from './marketing/TextsForm';

type Selected = { eventId: string; locale: string };

const when = (iso: string | null) => (iso === null ? '—' : new Date(iso).toLocaleString());

export function AppEvents({ session, projectId }: { session: Session; projectId: string }) {
  const events = useAppEvents(projectId);
  const [selected, setSelected] = useState<Selected | null>(null);
  const list = events.data?.events ?? [];
  const locales = [...new Set(list.flatMap((e) => Object.keys(e.locales)))].sort();
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>In-app events</h1>
      <ErrorMessage error={events.error} />
      {events.isPending && <p className="loading">Loading…</p>}
      {events.data !== undefined && list.length === 0 && (
        <p>No in-app events yet: sync the project to read them from App Store Connect.</p>
      )}
      {list.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption>In-app events by locale; choose a cell to edit its texts</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col">Starts</th>
                {locales.map((locale) => (
                  <th scope="col" key={locale}>
                    {locale}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {list.map((event) => (
                <tr key={event.eventId}>
                  <th scope="row">
                    {event.referenceName}
                    {event.badge !== null && (
                      <>
                        <br />
                        <small>{plainState(event.badge)}</small>
                      </>
                    )}
                  </th>
                  <td>
                    {event.state === null ? '—' : plainState(event.state)}
                    {!event.editable && <> (read-only)</>}
                  </td>
                  <td>{when(event.schedules[0]?.eventStart ?? null)}</td>
                  {locales.map((locale) => (
                    <td key={locale}>
                      <button
                        type="button"
                        aria-pressed={selected?.eventId === event.eventId && selected.locale === locale}
                        onClick={() => setSelected({ eventId: event.eventId, locale })}
                      >
                        {event.locales[locale] === undefined ? 'Add' : 'Edit'}
                        <span className="visually-hidden">
                          {' '}
                          {event.referenceName} in {locale}
                        </span>
                      </button>
                      {event.states[locale] !== undefined && event.states[locale] !== 'unchanged' && (
                        <span className={`state state-${event.states[locale]}`}>{event.states[locale]}</span>
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {selected !== null && (
        <EventEditor
          key={`${selected.eventId}/${selected.locale}`}
          session={session}
          projectId={projectId}
          selected={selected}
          name={list.find((e) => e.eventId === selected.eventId)?.referenceName ?? selected.eventId}
        />
      )}
      <p>
        Saved texts are pending changes: review and push them from the{' '}
        <Link href={`/projects/${projectId}`}>project</Link>.
      </p>
    </>
  );
}

function EventEditor({
  session,
  projectId,
  selected,
  name,
}: {
  session: Session;
  projectId: string;
  selected: Selected;
  name: string;
}) {
  const { eventId, locale } = selected;
  const client = useQueryClient();
  const view = useAppEvent(projectId, eventId, locale);
  const save = useMutation({
    mutationFn: (body: Record<string, string | null>) =>
      unwrap(
        api.PATCH('/api/v1/projects/{projectId}/app-events/{eventId}/{locale}', {
          params: { path: { projectId, eventId, locale } },
          body,
        }),
      ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.appEvent(projectId, eventId, locale) });
      await client.invalidateQueries({ queryKey: keys.appEvents(projectId) });
      await client.invalidateQueries({ queryKey: keys.diff(projectId) });
    },
  });
  return (
    <Section title={`${name} · ${locale}`}>
      <ScopeNote note={scopeNote(session, locale)} />
      <ErrorMessage error={view.error} />
      {view.data !== undefined && (
        <TextsForm
          idPrefix="event"
          fields={view.data.fields}
          editable={canEdit(session, locale)}
          reason={view.data.reason}
          busy={save.isPending}
          error={save.error}
          onSave={(changed, done) => save.mutate(changed, { onSuccess: done })}
        />
      )}
    </Section>
  );
}
