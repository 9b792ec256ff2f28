import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent } from 'react';
import { api, synchronous, unwrap } from '../api/client';
import { checkFieldValue, STORE_NAMES, STORES, type Store } from '../listing-rules';
import { Link, navigate } from '../router';
import { canEdit, isAdmin, type Session } from '../session';
import { BusyButton, ErrorMessage, Section, when } from '../ui';

type Listing = Awaited<ReturnType<typeof loadListings>>['listings'][number];
const loadListings = (projectId: string) =>
  unwrap(api.GET('/api/v1/projects/{projectId}/listings', { params: { path: { projectId } } }));

/** A cell of the locale × store matrix: the listing's state, or invalid when a value breaks a rule. */
function cellState(listing: Listing | undefined): string {
  if (listing === undefined) return 'none';
  const invalid = Object.entries(listing.fields).some(
    ([field, view]) => checkFieldValue(listing.store, field, view.value) !== null,
  );
  return invalid ? 'invalid' : listing.state;
}

export function Project({ session, projectId }: { session: Session; projectId: string }) {
  const client = useQueryClient();
  const path = { params: { path: { projectId } } };
  const project = useQuery({
    queryKey: ['project', projectId],
    queryFn: () => unwrap(api.GET('/api/v1/projects/{projectId}', path)),
  });
  const listings = useQuery({ queryKey: ['listings', projectId], queryFn: () => loadListings(projectId) });
  const refresh = () => client.invalidateQueries({ predicate: (q) => q.queryKey.includes(projectId) });
  const sync = useMutation({
    mutationFn: async () =>
      synchronous(await unwrap(api.POST('/api/v1/projects/{projectId}/sync', { ...path, body: {} }))),
    onSettled: refresh,
  });

  if (project.isPending || listings.isPending) return <p className="loading">Loading…</p>;
  if (project.error || listings.error) return <ErrorMessage error={project.error ?? listings.error} />;
  const p = project.data.project;
  const locales = [...new Set(listings.data.listings.map((l) => l.locale))].sort();
  const find = (store: Store, locale: string) =>
    listings.data.listings.find((l) => l.store === store && l.locale === locale);

  return (
    <>
      <h1>{p.name}</h1>
      <dl className="facts">
        <dt>App Store</dt>
        <dd>
          {p.appStoreAppId ? (
            <a href={`https://apps.apple.com/app/id${p.appStoreAppId}`} rel="noreferrer noopener">
              {p.appStoreAppId}
            </a>
          ) : (
            'not linked'
          )}
        </dd>
        <dt>Google Play</dt>
        <dd>
          {p.playStorePackageName ? (
            <a
              href={`https://play.google.com/store/apps/details?id=${encodeURIComponent(p.playStorePackageName)}`}
              rel="noreferrer noopener"
            >
              {p.playStorePackageName}
            </a>
          ) : (
            'not linked'
          )}
        </dd>
        <dt>Last sync</dt>
        <dd>{when(p.metadata.lastSyncedAt)}</dd>
      </dl>

      <Section title="Listings">
        {locales.length === 0 ? (
          <p>No listings yet: sync from the stores, or add a locale.</p>
        ) : (
          <table className="matrix">
            <thead>
              <tr>
                <th scope="col">Locale</th>
                {STORES.map((store) => (
                  <th scope="col" key={store}>
                    {STORE_NAMES[store]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {locales.map((locale) => (
                <tr key={locale}>
                  <th scope="row">
                    <Link href={`/projects/${projectId}/listings/${encodeURIComponent(locale)}`}>
                      {locale}
                    </Link>
                  </th>
                  {STORES.map((store) => {
                    const state = cellState(find(store, locale));
                    return (
                      <td key={store} className={`state state-${state}`}>
                        {state === 'none' ? '—' : state}{' '}
                        <Link
                          href={`/projects/${projectId}/media/${store}/${encodeURIComponent(locale)}`}
                          aria-label={`${STORE_NAMES[store]} ${locale} screenshots`}
                        >
                          screenshots
                        </Link>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {canEdit(session) && <AddLocale projectId={projectId} existing={locales} />}
      </Section>

      {canEdit(session) && (
        <Section title="Sync">
          <p>
            Pull the live listings from both stores. Fields changed here and in the store become conflicts.
          </p>
          <BusyButton type="button" busy={sync.isPending} busyLabel="Syncing…" onClick={() => sync.mutate()}>
            Sync from the stores
          </BusyButton>
          <ErrorMessage error={sync.error} />
          {sync.data && (
            <div role="status">
              <p>
                Synced locales: {sync.data.syncedLocales.join(', ') || 'none'}. Conflicts:{' '}
                {sync.data.conflicts.length}.
              </p>
              <Failures failures={sync.data.failures} />
            </div>
          )}
        </Section>
      )}

      <Section title="Releases">
        <p>
          <Link href={`/projects/${projectId}/releases`}>Versions, tracks and release notes</Link>
        </p>
      </Section>

      <Section title="Translations">
        <p>
          <Link href={`/projects/${projectId}/translations`}>
            Missing and outdated translations, XLIFF, machine drafts
          </Link>
        </p>
      </Section>

      <PendingChanges session={session} projectId={projectId} onChanged={refresh} />

      <Section title="fastlane">
        <p>
          <a href={`/api/v1/projects/${projectId}/export?archive=zip`} download>
            Download as fastlane metadata (zip)
          </a>
        </p>
        {canEdit(session) && <Import projectId={projectId} onDone={refresh} />}
      </Section>
    </>
  );
}

function AddLocale({ projectId, existing }: { projectId: string; existing: string[] }) {
  const [code, setCode] = useState('');
  const locales = useQuery({ queryKey: ['locales'], queryFn: () => unwrap(api.GET('/api/v1/locales')) });
  const all = locales.data
    ? [
        ...new Map(
          [...locales.data.stores.appstore, ...locales.data.stores.playstore].map((l) => [l.code, l]),
        ).values(),
      ]
        .filter((l) => !existing.includes(l.code))
        .sort((a, b) => a.code.localeCompare(b.code))
    : [];
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        if (code !== '') navigate(`/projects/${projectId}/listings/${encodeURIComponent(code)}`);
      }}
    >
      <label htmlFor="new-locale">Add a locale</label>
      <select id="new-locale" value={code} onChange={(e) => setCode(e.target.value)}>
        <option value="">Choose…</option>
        {all.map((l) => (
          <option key={l.code} value={l.code}>
            {l.code} — {l.name}
          </option>
        ))}
      </select>
      <button type="submit" disabled={code === ''}>
        Open editor
      </button>
    </form>
  );
}

type Failure = {
  store: string;
  locale: string | null;
  field: string | null;
  error: { code: string; message: string };
};

function Failures({ failures }: { failures: Failure[] }) {
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

function PendingChanges({
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
    queryKey: ['diff', projectId],
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

function Import({ projectId, onDone }: { projectId: string; onDone: () => unknown }) {
  const upload = useMutation({
    // The archive goes as it is (a Blob), not through JSON.
    mutationFn: (file: File) =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/import', {
          params: { path: { projectId } },
          body: file,
          bodySerializer: (archive) => archive,
          headers: { 'Content-Type': file.name.endsWith('.zip') ? 'application/zip' : 'application/gzip' },
        }),
      ),
    onSuccess: onDone,
  });
  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) upload.mutate(file);
  };
  return (
    <div>
      <label htmlFor="import-file">Import fastlane metadata (.zip or .tar.gz)</label>
      <input
        id="import-file"
        type="file"
        accept=".zip,.gz,.tgz"
        onChange={onFile}
        disabled={upload.isPending}
      />
      {upload.isPending && <p role="status">Importing…</p>}
      {upload.data && (
        <p role="status">
          Imported{' '}
          {upload.data.imported
            .map(
              (i) =>
                `${STORE_NAMES[i.store]} ${i.locale} (${i.fields === 1 ? '1 field' : `${i.fields} fields`})`,
            )
            .join(', ') || 'nothing'}
          .
          {upload.data.skipped.length > 0 &&
            ` Skipped ${upload.data.skipped.length} other file(s) or folder(s).`}
        </p>
      )}
      <ErrorMessage error={upload.error} />
    </div>
  );
}
