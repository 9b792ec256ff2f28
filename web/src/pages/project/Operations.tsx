/**
 * A project's history of syncs and pushes (design.md §11): who ran which, when, on which stores
 * and locales, how long it took and how it ended — newest first, a page at a time.
 */
import { useState } from 'react';
import { useMembers, useOperations, useProject } from '../../api/queries';
import { STORE_NAMES, type Store } from '../../listing-rules';
import { plainStatus } from '../../plain-words';
import { Link } from '../../router';
import { ErrorMessage, HeaderRow, when } from '../../ui';

const PAGE = 20;

function duration(startedAt: string, finishedAt: string | null): string {
  if (finishedAt === null) return 'running';
  const seconds = (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;
  return seconds < 60 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds / 60)} min`;
}

/** The outcome in a few words: the error, or what was done. */
function summary(outcome: Record<string, unknown> | null): string {
  if (outcome === null) return '—';
  const error = outcome.error as { message?: string } | undefined;
  if (error?.message) return error.message;
  const failures = Array.isArray(outcome.failures) ? outcome.failures.length : 0;
  const written = Array.isArray(outcome.written) ? outcome.written.length : null;
  const parts: string[] = [];
  if (written !== null) parts.push(`${written} locale${written === 1 ? '' : 's'} written`);
  if (failures > 0) parts.push(`${failures} failed`);
  return parts.length === 0 ? 'done' : parts.join(', ');
}

export function OperationsPage({ projectId }: { projectId: string }) {
  const [offset, setOffset] = useState(0);
  const project = useProject(projectId);
  const operations = useOperations(projectId, offset);
  const members = useMembers();
  const nameOf = (actor: { memberId: string | null; operator: string | null }) =>
    members.data?.members.find((m) => m.id === actor.memberId)?.name ??
    actor.operator ??
    (actor.memberId === null ? 'scheduled' : 'a former member');
  const page = operations.data;
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← {project.data?.project.name ?? 'Project'}</Link>
      </p>
      <h1>Syncs and pushes</h1>
      <ErrorMessage error={operations.error} />
      {page && page.operations.length === 0 && <p>Nothing has been synced or pushed yet.</p>}
      {page && page.operations.length > 0 && (
        <>
          <div className="table-scroll">
            <table aria-label="Syncs and pushes, newest first">
              <thead>
                <HeaderRow
                  columns={['What', 'Status', 'Who', 'Stores', 'Locales', 'Started', 'Took', 'Result']}
                  actions={false}
                />
              </thead>
              <tbody>
                {page.operations.map((op) => (
                  <tr key={op.id}>
                    <td>{op.kind === 'sync' ? 'Sync' : 'Push'}</td>
                    <td className={`state state-${op.status}`}>{plainStatus(op.status)}</td>
                    <td>{nameOf(op.actor)}</td>
                    <td>{op.stores.map((s) => STORE_NAMES[s as Store] ?? s).join(', ')}</td>
                    <td>{op.locales === null ? 'all' : op.locales.join(', ')}</td>
                    <td>{when(op.startedAt)}</td>
                    <td>{duration(op.startedAt, op.finishedAt)}</td>
                    <td>{summary(op.outcome)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="pager">
            <button
              type="button"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE))}
            >
              Newer
            </button>{' '}
            {offset + 1}–{offset + page.operations.length} of {page.total}{' '}
            <button
              type="button"
              disabled={offset + PAGE >= page.total}
              onClick={() => setOffset(offset + PAGE)}
            >
              Older
            </button>
          </p>
        </>
      )}
    </>
  );
}
