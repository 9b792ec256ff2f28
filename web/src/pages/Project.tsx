import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, synchronous, unwrap } from '../api/client';
import { checkFieldValue, STORE_NAMES, STORES, type Store } from '../listing-rules';
import { Link, navigate } from '../router';
import { canEdit, type Session } from '../session';
import { BusyButton, ErrorMessage, Section, when } from '../ui';
import { Import } from './project/Import';
import { Failures } from './project/Failures';
import { PendingChanges } from './project/PendingChanges';
import { useListings, useLocales, useProject, type ProjectListing } from '../api/queries';

/** A cell of the locale × store matrix: the listing's state, or invalid when a value breaks a rule. */
function cellState(listing: ProjectListing | undefined): string {
  if (listing === undefined) return 'none';
  const invalid = Object.entries(listing.fields).some(
    ([field, view]) => checkFieldValue(listing.store, field, view.value) !== null,
  );
  return invalid ? 'invalid' : listing.state;
}

export function Project({ session, projectId }: { session: Session; projectId: string }) {
  const client = useQueryClient();
  const path = { params: { path: { projectId } } };
  const project = useProject(projectId);
  const listings = useListings(projectId);
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
        <dd>
          {when(p.metadata.lastSyncedAt)} ·{' '}
          <Link href={`/projects/${projectId}/operations`}>Every sync and push</Link>
        </dd>
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
        <p>
          Screenshots and previews of every locale:{' '}
          {STORES.map((store, i) => (
            <span key={store}>
              {i > 0 && ' · '}
              <Link href={`/projects/${projectId}/media/${store}`}>{STORE_NAMES[store]} overview</Link>
            </span>
          ))}
        </p>
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

      <Section title="In-app purchases and subscriptions">
        <p>
          <Link href={`/projects/${projectId}/products`}>
            Product names, descriptions and benefits per locale
          </Link>
        </p>
      </Section>

      <Section title="Release calendar">
        <p>
          <Link href={`/projects/${projectId}/calendar`}>
            Scheduled pushes, campaigns and release controls, upcoming and past
          </Link>
        </p>
      </Section>

      <Section title="App details">
        <p>
          <Link href={`/projects/${projectId}/details`}>
            Copyright, categories, App Review information and Google Play contact details
          </Link>
        </p>
      </Section>

      <Section title="Custom product pages and in-app events">
        <p>
          <Link href={`/projects/${projectId}/product-pages`}>
            App Store custom product pages: promotional text and screenshots
          </Link>
        </p>
        <p>
          <Link href={`/projects/${projectId}/app-events`}>In-app events: names and descriptions</Link>
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
  const locales = useLocales();
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
