/**
 * App Store custom product pages of a project (design.md §18): each page with its state, URL and
 * a preview of its first screenshots, its locales to choose from; for a page and a locale, its
 * promotional text with a live counter and its screenshots (upload, remove) — media slots of the
 * page. A page in a state App Store Connect refuses changes in is shown read-only with the reason.
 * Google Play's custom store listings have no API: the page says so.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { usePageMedia, useProductPage, useProductPages } from '../api/queries';
import { slotUrl, uploadFile } from '../api/upload';
import { plainState } from '../plain-words';
import { Link } from '../router';
import { canEdit, scopeNote, type Session } from '../session';
import { BusyButton, ErrorMessage, ScopeNote, Section } from '../ui';
import { TextsForm } from './marketing/TextsForm';

type Selected = { pageId: string; locale: string };
/** The screenshot slot a page's uploads go to unless another is chosen: the 6.9″ iPhone. */
const DEFAULT_SLOT = 'APP_IPHONE_67';

export function ProductPages({ session, projectId }: { session: Session; projectId: string }) {
  const pages = useProductPages(projectId);
  const [selected, setSelected] = useState<Selected | null>(null);
  const [newLocale, setNewLocale] = useState<Record<string, string>>({});
  const list = pages.data?.pages ?? [];
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>Custom product pages</h1>
      <p>
        App Store pages with their own screenshots and promotional text, each with a URL for ads. Google
        Play&apos;s custom store listings have no public API: edit them in the Play Console.
      </p>
      <ErrorMessage error={pages.error} />
      {pages.isPending && <p className="loading">Loading…</p>}
      {pages.data !== undefined && list.length === 0 && (
        <p>No custom product pages yet: sync the project to read them from App Store Connect.</p>
      )}
      <ul className="cards">
        {list.map((page) => (
          <li key={page.pageId} className="card">
            <h2>{page.name}</h2>
            <p>
              {page.version.state === null ? 'No version yet' : plainState(page.version.state)}
              {!page.version.editable && <> · read-only</>}
              {page.pending > 0 && <> · {page.pending} pending</>}
            </p>
            {page.preview !== null ? (
              <p className="thumbs">
                {page.preview.thumbnails.map((url, index) => (
                  <img
                    key={url}
                    src={url}
                    alt={`${page.name}: screenshot ${index + 1} (${page.preview!.locale})`}
                  />
                ))}
              </p>
            ) : (
              <p>No screenshots of its own yet.</p>
            )}
            {page.url !== null && (
              <p>
                <a href={page.url}>Page URL</a>
              </p>
            )}
            <p>
              {Object.keys(page.locales)
                .sort()
                .map((locale) => (
                  <button
                    type="button"
                    key={locale}
                    aria-pressed={selected?.pageId === page.pageId && selected.locale === locale}
                    onClick={() => setSelected({ pageId: page.pageId, locale })}
                  >
                    {locale}
                    <span className="visually-hidden"> of {page.name}</span>
                    {page.states[locale] !== 'unchanged' && ` (${page.states[locale]})`}
                  </button>
                ))}
            </p>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                const locale = (newLocale[page.pageId] ?? '').trim();
                if (locale !== '') setSelected({ pageId: page.pageId, locale });
              }}
            >
              <label htmlFor={`add-${page.pageId}`}>Another locale of {page.name}</label>
              <input
                id={`add-${page.pageId}`}
                value={newLocale[page.pageId] ?? ''}
                onChange={(e) => setNewLocale({ ...newLocale, [page.pageId]: e.target.value })}
              />
              <button type="submit">Open</button>
            </form>
          </li>
        ))}
      </ul>
      {selected !== null && (
        <PageEditor
          key={`${selected.pageId}/${selected.locale}`}
          session={session}
          projectId={projectId}
          selected={selected}
          name={list.find((p) => p.pageId === selected.pageId)?.name ?? selected.pageId}
        />
      )}
      <p>
        Saved texts and screenshots are pending changes: review and push them from the{' '}
        <Link href={`/projects/${projectId}`}>project</Link>.
      </p>
    </>
  );
}

/** One page in one locale: its promotional text, then its screenshots. */
function PageEditor({
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
  const { pageId, locale } = selected;
  const client = useQueryClient();
  const view = useProductPage(projectId, pageId, locale);
  const media = usePageMedia(projectId, pageId, locale);
  const editable = canEdit(session, locale);
  const writable = editable && view.data?.editable === true;
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: keys.productPages(projectId) });
    await client.invalidateQueries({ queryKey: keys.media(projectId) });
    await client.invalidateQueries({ queryKey: keys.diff(projectId) });
  };
  const save = useMutation({
    mutationFn: (body: { promotionalText?: string | null }) =>
      unwrap(
        api.PATCH('/api/v1/projects/{projectId}/product-pages/{pageId}/{locale}', {
          params: { path: { projectId, pageId, locale } },
          body,
        }),
      ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.productPage(projectId, pageId, locale) });
      await refresh();
    },
  });
  const upload = useMutation({
    mutationFn: async (files: File[]) => {
      const url = `${slotUrl(projectId, 'appstore', locale, DEFAULT_SLOT)}?productPage=${encodeURIComponent(pageId)}`;
      for (const file of files) await uploadFile(url, file, () => undefined);
    },
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (itemId: string) =>
      unwrap(
        api.DELETE('/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}/{itemId}', {
          params: {
            path: { projectId, store: 'appstore', locale, slotType: DEFAULT_SLOT, itemId },
            query: { productPage: pageId },
          },
        }),
      ),
    onSettled: refresh,
  });
  const copy = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/product-pages/{pageId}/copy-default', {
          params: { path: { projectId, pageId } },
          body: { locales: [locale] },
        }),
      ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.productPage(projectId, pageId, locale) });
      await refresh();
    },
  });
  const slot = media.data?.slots.find((s) => s.slotType === DEFAULT_SLOT);

  return (
    <Section title={`${name} · ${locale}`}>
      <ScopeNote note={scopeNote(session, locale)} />
      <ErrorMessage error={view.error} />
      {view.data !== undefined && (
        <TextsForm
          idPrefix="page"
          fields={view.data.fields}
          editable={editable}
          reason={view.data.reason}
          busy={save.isPending}
          error={save.error}
          onSave={(changed, done) => save.mutate(changed, { onSuccess: done })}
        />
      )}
      <h3>Screenshots (iPhone 6.9″)</h3>
      <ErrorMessage error={media.error ?? upload.error ?? remove.error} />
      {slot === undefined || slot.items.length === 0 ? (
        <p>No screenshots in this locale yet.</p>
      ) : (
        <ol className="thumbs">
          {slot.items.map((item, index) => (
            <li key={item.id}>
              <img src={item.thumbnailUrl ?? item.url} alt={`${index + 1}. ${item.fileName}`} />
              {writable && (
                <button type="button" onClick={() => remove.mutate(item.id)}>
                  Remove <span className="visually-hidden">{item.fileName}</span>
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
      {writable && (
        <>
          <label htmlFor="page-upload">Add screenshots</label>
          <input
            id="page-upload"
            type="file"
            accept="image/png,image/jpeg"
            multiple
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              if (files.length > 0) upload.mutate(files);
            }}
          />
          {upload.isPending && <p className="loading">Uploading…</p>}
          <p>
            <BusyButton type="button" busy={copy.isPending} onClick={() => copy.mutate()}>
              Copy the default page&apos;s text and screenshots
            </BusyButton>
          </p>
          <ErrorMessage error={copy.error} />
        </>
      )}
    </Section>
  );
}
