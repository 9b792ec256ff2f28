/**
 * Every screenshot and preview of one store at a glance (#44): device slots × locales, each cell
 * with its thumbnails and count — what is missing where, and which locales use the same files as
 * the source locale — and bulk upload that places files across locales by their names.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useListings, useTranslations } from '../api/queries';
import { slotUrl, uploadFile } from '../api/upload';
import { STORE_NAMES, STORES, type Store } from '../listing-rules';
import { placeByName, type Placement, type Unplaced } from '../media-names';
import { Link } from '../router';
import { canEdit, type Session } from '../session';
import { BusyButton, ErrorMessage, HeaderRow } from '../ui';

type Slot = Awaited<ReturnType<typeof loadMedia>>['slots'][number];

const loadMedia = (projectId: string, store: Store) =>
  unwrap(
    api.GET('/api/v1/projects/{projectId}/media', { params: { path: { projectId }, query: { store } } }),
  );
const loadSlotTypes = async () => (await unwrap(api.GET('/api/v1/media/slot-types'))).slotTypes;

const shas = (slot: Slot | undefined) => (slot?.items ?? []).map((item) => item.sha256).join(',');

function Cell({
  projectId,
  store,
  locale,
  slotType,
  slot,
  slotName,
  source,
  sourceLocale,
  usedElsewhere,
}: {
  projectId: string;
  store: Store;
  locale: string;
  slotType: string;
  slot: Slot | undefined;
  slotName: string;
  source: Slot | undefined;
  sourceLocale: string;
  usedElsewhere: boolean;
}) {
  const items = slot?.items ?? [];
  const same = locale !== sourceLocale && items.length > 0 && shas(slot) === shas(source);
  const href = `/projects/${projectId}/media/${store}/${encodeURIComponent(locale)}?slot=${slotType}`;
  const state = items.length === 0 ? (usedElsewhere ? 'missing' : 'empty') : same ? 'same' : 'own';
  return (
    <td className={`media-cell media-${state}`} data-state={state}>
      <Link href={href} aria-label={`${slotName}, ${locale}: ${describe(state, items.length, sourceLocale)}`}>
        {items.length === 0 ? (
          <span>{usedElsewhere ? 'missing' : '—'}</span>
        ) : (
          <>
            <span className="mini-thumbs" aria-hidden="true">
              {items
                .slice(0, 3)
                .map((item) =>
                  item.thumbnailUrl ? (
                    <img key={item.id} src={item.thumbnailUrl} alt="" loading="lazy" />
                  ) : (
                    <span key={item.id}>▶</span>
                  ),
                )}
            </span>
            <span>
              {items.length}
              {same && ` · same as ${sourceLocale}`}
            </span>
          </>
        )}
      </Link>
    </td>
  );
}

function describe(state: string, count: number, sourceLocale: string): string {
  if (state === 'missing') return 'missing (other locales have files here)';
  if (state === 'empty') return 'no files';
  const files = `${count} file${count === 1 ? '' : 's'}`;
  return state === 'same' ? `${files}, the same as ${sourceLocale}` : files;
}

/** Bulk upload: pick files, see where each goes, upload them in order. */
function BulkUpload({
  projectId,
  store,
  locales,
  slotTypes,
  slotNames,
}: {
  projectId: string;
  store: Store;
  locales: string[];
  slotTypes: string[];
  slotNames: Map<string, string>;
}) {
  const client = useQueryClient();
  const [plan, setPlan] = useState<{ placed: Placement[]; unplaced: Unplaced[] } | null>(null);
  const [done, setDone] = useState(0);
  const upload = useMutation({
    mutationFn: async (placed: Placement[]) => {
      setDone(0);
      for (const [index, p] of placed.entries()) {
        await uploadFile(slotUrl(projectId, store, p.locale, p.slotType), p.file, () => undefined);
        setDone(index + 1);
      }
    },
    onSettled: () => client.invalidateQueries({ queryKey: keys.media(projectId) }),
    onSuccess: () => setPlan(null),
  });
  return (
    <section aria-label="Upload many files">
      <h2>Upload many files</h2>
      <p id="bulk-help">
        Name each file <code>locale_slot_number</code>, e.g. <code>de-DE_{slotTypes[0] ?? 'slot'}_1.png</code>
        : each goes to that locale’s slot, in the order of its number, after the files the slot holds.
      </p>
      <label htmlFor="bulk-files">Files to place by name</label>
      <input
        id="bulk-files"
        type="file"
        multiple
        accept="image/png,image/jpeg,video/mp4,video/quicktime,.m4v"
        aria-describedby="bulk-help"
        disabled={upload.isPending}
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = '';
          upload.reset();
          setPlan(files.length === 0 ? null : placeByName(files, locales, slotTypes));
        }}
      />
      {plan && (
        <>
          <div className="table-scroll">
            <table aria-label="Where each file goes">
              <thead>
                <HeaderRow columns={['File', 'Goes to']} actions={false} />
              </thead>
              <tbody>
                {plan.placed.map((p) => (
                  <tr key={p.file.name}>
                    <td>{p.file.name}</td>
                    <td>
                      {p.locale} · {slotNames.get(p.slotType) ?? p.slotType} · number {p.position}
                    </td>
                  </tr>
                ))}
                {plan.unplaced.map((u) => (
                  <tr key={u.file.name} className="state-invalid">
                    <td>{u.file.name}</td>
                    <td>Not placed: {u.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <BusyButton
            type="button"
            busy={upload.isPending}
            busyLabel={`Uploading ${done + 1} of ${plan.placed.length}…`}
            disabled={plan.placed.length === 0}
            onClick={() => upload.mutate(plan.placed)}
          >
            Upload {plan.placed.length} file{plan.placed.length === 1 ? '' : 's'}
          </BusyButton>
          {upload.isPending && (
            <p role="status">
              <progress max={plan.placed.length} value={done} aria-label="Files uploaded" /> {done} of{' '}
              {plan.placed.length}
            </p>
          )}
        </>
      )}
      {upload.isSuccess && <p role="status">Uploaded {done} files.</p>}
      <ErrorMessage error={upload.error} />
      {upload.isError && done > 0 && <p>The first {done} files were uploaded; the rest were not sent.</p>}
    </section>
  );
}

export function MediaOverview({
  session,
  projectId,
  store,
}: {
  session: Session;
  projectId: string;
  store: Store;
}) {
  const listings = useListings(projectId);
  const translations = useTranslations(projectId);
  const media = useQuery({
    queryKey: [...keys.media(projectId), store, 'all'],
    queryFn: () => loadMedia(projectId, store),
  });
  const slotTypes = useQuery({ queryKey: keys.mediaSlotTypes(), queryFn: loadSlotTypes });
  const [everySlot, setEverySlot] = useState(false);
  const locales = [
    ...new Set([
      ...(listings.data?.listings ?? []).filter((l) => l.store === store).map((l) => l.locale),
      ...(media.data?.slots ?? []).map((s) => s.locale),
    ]),
  ].sort();
  const sourceLocale = translations.data?.sourceLocale ?? 'en-US';
  const rules = (slotTypes.data ?? []).filter((rule) => rule.store === store);
  const slotNames = new Map(rules.map((rule) => [rule.slotType, rule.name]));
  const slotOf = (locale: string, slotType: string) =>
    media.data?.slots.find((s) => s.locale === locale && s.slotType === slotType);
  const used = new Set((media.data?.slots ?? []).filter((s) => s.items.length > 0).map((s) => s.slotType));
  const rows = rules.filter((rule) => everySlot || used.has(rule.slotType));
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>Screenshots and previews · {STORE_NAMES[store]}</h1>
      <nav aria-label="Store">
        {STORES.filter((s) => s !== store).map((other) => (
          <Link key={other} href={`/projects/${projectId}/media/${other}`}>
            Switch to {STORE_NAMES[other]}
          </Link>
        ))}
      </nav>
      <ErrorMessage error={media.error ?? slotTypes.error ?? listings.error} />
      <label className="check">
        <input type="checkbox" checked={everySlot} onChange={(e) => setEverySlot(e.target.checked)} />
        Show every device slot, not only the ones in use
      </label>
      {locales.length === 0 ? (
        <p>No {STORE_NAMES[store]} listings yet.</p>
      ) : rows.length === 0 ? (
        <p>No screenshots or previews yet: upload some below, or open a locale.</p>
      ) : (
        <div className="table-scroll">
          <table className="media-overview" aria-label="Files per device slot and locale">
            <thead>
              <tr>
                <th scope="col">Slot</th>
                {locales.map((locale) => (
                  <th scope="col" key={locale}>
                    <Link href={`/projects/${projectId}/media/${store}/${encodeURIComponent(locale)}`}>
                      {locale}
                    </Link>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((rule) => (
                <tr key={rule.slotType}>
                  <th scope="row">{rule.name}</th>
                  {locales.map((locale) => (
                    <Cell
                      key={locale}
                      projectId={projectId}
                      store={store}
                      locale={locale}
                      slotType={rule.slotType}
                      slot={slotOf(locale, rule.slotType)}
                      slotName={rule.name}
                      source={slotOf(sourceLocale, rule.slotType)}
                      sourceLocale={sourceLocale}
                      usedElsewhere={used.has(rule.slotType)}
                    />
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canEdit(session) && locales.length > 0 && (
        <BulkUpload
          projectId={projectId}
          store={store}
          locales={locales}
          slotTypes={rules.map((rule) => rule.slotType)}
          slotNames={slotNames}
        />
      )}
    </>
  );
}
