/** The audit log (admins), newest first, a page at a time. */
import { useState } from 'react';
import { ErrorMessage, Section, when } from '../../ui';
import { useAuditLog } from '../../api/queries';

export function AuditLog() {
  const [offset, setOffset] = useState(0);
  const log = useAuditLog(offset);
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
