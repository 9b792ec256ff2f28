/** The audit log (admins): who did what, where, when — filtered, a page at a time, or as CSV. */
import { useState } from 'react';
import { ErrorMessage, Section, when } from '../../ui';
import { useAuditLog, useMembers, useProjectsPage, type AuditFilter } from '../../api/queries';

const PAGE = 20;

/** The action filters offered: whole areas (a prefix) first; any operation id may be typed. */
const AREAS = ['projects.', 'listings.', 'media.', 'releaseNotes.', 'approvalRequests.', 'members.'];

/** A date input's day as the instant it starts (local time), for `from`; the next day's for `to`. */
const dayStart = (day: string, plusDays = 0): string | undefined => {
  if (day === '') return undefined;
  const date = new Date(`${day}T00:00:00`);
  date.setDate(date.getDate() + plusDays);
  return date.toISOString();
};

export function AuditLog() {
  const [offset, setOffset] = useState(0);
  const [actor, setActor] = useState('');
  const [projectId, setProjectId] = useState('');
  const [action, setAction] = useState('');
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const filter: AuditFilter = {
    ...(actor !== '' && { actor }),
    ...(projectId !== '' && { projectId }),
    ...(/^[A-Za-z][A-Za-z.]*$/.test(action) && { action }),
    ...(dayStart(fromDay) !== undefined && { from: dayStart(fromDay) }),
    ...(dayStart(toDay, 1) !== undefined && { to: dayStart(toDay, 1) }),
  };
  const log = useAuditLog(filter, offset);
  const members = useMembers();
  const projects = useProjectsPage('', 0, 100);
  const filtered =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setOffset(0);
    };
  const csv = `/api/v1/organization/audit-log.csv?${new URLSearchParams(filter)}`;
  return (
    <Section title="Audit log">
      <form className="filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="audit-actor">Member</label>
        <select id="audit-actor" value={actor} onChange={(e) => filtered(setActor)(e.target.value)}>
          <option value="">Everyone</option>
          {members.data?.members.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
        </select>
        <label htmlFor="audit-project">Project</label>
        <select id="audit-project" value={projectId} onChange={(e) => filtered(setProjectId)(e.target.value)}>
          <option value="">All projects</option>
          {projects.data?.projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <label htmlFor="audit-action">Action</label>
        <input
          id="audit-action"
          list="audit-areas"
          value={action}
          placeholder="e.g. listings."
          onChange={(e) => filtered(setAction)(e.target.value.trim())}
        />
        <datalist id="audit-areas">
          {AREAS.map((area) => (
            <option key={area} value={area} />
          ))}
        </datalist>
        <label htmlFor="audit-from">From</label>
        <input
          id="audit-from"
          type="date"
          value={fromDay}
          onChange={(e) => filtered(setFromDay)(e.target.value)}
        />
        <label htmlFor="audit-to">To</label>
        <input id="audit-to" type="date" value={toDay} onChange={(e) => filtered(setToDay)(e.target.value)} />
      </form>
      <p>
        <a href={csv} download="audit-log.csv">
          Download these entries as CSV
        </a>
        {log.data && ` · ${log.data.total} ${log.data.total === 1 ? 'entry' : 'entries'}`}
      </p>
      <ErrorMessage error={log.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Project</th>
            <th scope="col">Target</th>
          </tr>
        </thead>
        <tbody>
          {log.data?.entries.map((e) => (
            <tr key={e.id}>
              <td>{when(e.createdAt)}</td>
              <td>{e.actor.name ?? e.actor.operator ?? e.actor.memberId ?? '—'}</td>
              <td>{e.action}</td>
              <td>{e.project ? (e.project.name ?? e.project.id) : '—'}</td>
              <td>
                {e.target.type} {e.target.id}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav aria-label="Audit log pages" className="pager">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Newer
        </button>
        <button
          type="button"
          disabled={!log.data || offset + PAGE >= log.data.total}
          onClick={() => setOffset(offset + PAGE)}
        >
          Older
        </button>
      </nav>
    </Section>
  );
}
