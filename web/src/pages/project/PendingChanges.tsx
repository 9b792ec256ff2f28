/** A project's pending changes: what a push would write, approval, preview and push. */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, synchronous, unwrap } from '../../api/client';
import { STORE_NAMES, type Store } from '../../listing-rules';
import { canEdit, isAdmin, type Session } from '../../session';
import { BusyButton, ErrorMessage, Section, when } from '../../ui';
import { keys } from '../../api/keys';

type Failure = {
  store: string;
  locale: string | null;
  field: string | null;
  error: { code: string; message: string };
};

export function Failures({ failures }: { failures: Failure[] }) {
  if (failures.length === 0) return null;
  return (
    <ul className="failures">
      {failures.map((f, i) => (
        <li key={i}>
          {f.store}
          {f.locale && ` ${f.locale}`}
          {f.field && ` ${f.field}`}: {f.error.code} — {f.error.message}
        </li>
      ))}
    </ul>
  );
}

export function PendingChanges({
  session,
  projectId,
  onChanged,
}: {
  session: Session;
  projectId: string;
  onChanged: () => unknown;
}) {
  const path = { params: { path: { projectId } } };
  const diff = useQuery({
    queryKey: keys.diff(projectId),
    queryFn: () => unwrap(api.GET('/api/v1/projects/{projectId}/diff', path)),
  });
  const approve = useMutation({
    mutationFn: (hash: string) =>
      unwrap(api.POST('/api/v1/projects/{projectId}/approvals', { ...path, body: { hash } })),
    onSettled: onChanged,
  });
  const preview = useMutation({
    mutationFn: async () =>
      synchronous(
        await unwrap(api.POST('/api/v1/projects/{projectId}/push', { ...path, body: { dryRun: true } })),
      ),
  });
  const push = useMutation({
    mutationFn: async () =>
      synchronous(await unwrap(api.POST('/api/v1/projects/{projectId}/push', { ...path, body: {} }))),
    onSettled: () => {
      preview.reset();
      return onChanged();
    },
  });
  if (diff.isPending) return null;
  if (diff.error) return <ErrorMessage error={diff.error} />;
  const d = diff.data;
  const result = push.data && !('dryRun' in push.data) ? push.data : null;
  return (
    <Section title="Pending changes">
      {d.inSync ? (
        <p>Nothing to push: the listings match the stores as last synced.</p>
      ) : (
        <>
          <p>
            {d.changeCount === 1 ? '1 change' : `${d.changeCount} changes`} to push
            {d.releaseNoteChangeCount > 0 && `, and ${d.releaseNoteChangeCount} release notes`}.
          </p>
          {Object.entries(d.stores).map(([store, locales]) =>
            Object.entries(locales).map(([locale, fields]) => (
              <table key={`${store}-${locale}`} className="diff">
                <caption>
                  {STORE_NAMES[store as Store]} · {locale}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">In the store</th>
                    <th scope="col">Here</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(fields).map(([field, change]) => (
                    <tr key={field}>
                      <th scope="row">{field}</th>
                      <td className="old">{change.old ?? '—'}</td>
                      <td className="new">{change.new ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )),
          )}
          {Object.entries(d.releaseNotes).map(([track, releases]) =>
            Object.entries(releases).map(([versionCode, notes]) => (
              <table key={`notes-${track}-${versionCode}`} className="diff">
                <caption>
                  Google Play release notes · {track} · version {versionCode}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Language</th>
                    <th scope="col">In the store</th>
                    <th scope="col">Here</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(notes).map(([language, change]) => (
                    <tr key={language}>
                      <th scope="row">{language}</th>
                      <td className="old">{change.old ?? '—'}</td>
                      <td className="new">{change.new ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )),
          )}
          {d.approval.required && (
            <p role="status">
              {d.approval.approved
                ? `Approved by ${d.approval.approvedBy ?? 'an admin'} on ${when(d.approval.approvedAt)}.`
                : 'These changes need an admin’s approval before they can be pushed.'}
            </p>
          )}
          {d.approval.required && !d.approval.approved && isAdmin(session) && (
            <BusyButton type="button" busy={approve.isPending} onClick={() => approve.mutate(d.hash)}>
              Approve these changes
            </BusyButton>
          )}
          <ErrorMessage error={approve.error} />
          {canEdit(session) && (
            <div className="actions">
              <BusyButton type="button" busy={preview.isPending} onClick={() => preview.mutate()}>
                Preview push
              </BusyButton>
              {preview.data &&
                'dryRun' in preview.data &&
                (!preview.data.approval.required || preview.data.approval.approved) && (
                  <BusyButton
                    type="button"
                    busy={push.isPending}
                    busyLabel="Pushing…"
                    onClick={() => push.mutate()}
                  >
                    Push to the stores
                  </BusyButton>
                )}
            </div>
          )}
          {preview.data && 'dryRun' in preview.data && (
            <p role="status">
              A push would change {preview.data.changeCount} field(s) in{' '}
              {preview.data.stores.map((s) => STORE_NAMES[s as Store]).join(' and ')}.
              {preview.data.approval.required &&
                !preview.data.approval.approved &&
                ' It needs an admin’s approval first.'}
            </p>
          )}
          <ErrorMessage error={preview.error ?? push.error} />
        </>
      )}
      {result && (
        <div role="status" aria-label="Push result">
          <h3>Push result</h3>
          <ul>
            <li>
              App Store:{' '}
              {result.appStore.pushed ? `pushed (${result.appStore.locales} locales)` : 'not pushed'}
            </li>
            <li>
              Google Play:{' '}
              {result.playStore.pushed ? `pushed (${result.playStore.locales} locales)` : 'not pushed'}
            </li>
          </ul>
          <p>Pushed locales: {result.pushedLocales.join(', ') || 'none'}</p>
          <Failures failures={result.failures} />
        </div>
      )}
    </Section>
  );
}
