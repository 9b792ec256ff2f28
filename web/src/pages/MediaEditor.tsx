/**
 * The media editor of one store and locale: a slot picker, the slot's rules, thumbnails in order
 * (drag to reorder, or move with the buttons), upload with progress, remove, and "use these for
 * all locales". Every change goes through the same routes as the API (design.md §12).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { api, unwrap } from '../api/client';
import { slotUrl, uploadFile } from '../api/upload';
import { STORE_NAMES, STORES, type Store } from '../listing-rules';
import { Link } from '../router';
import { canEdit, scopeNote, type Session } from '../session';
import { BusyButton, ErrorMessage, ScopeNote } from '../ui';
import { keys } from '../api/keys';
import { useMediaLocale, useTranslations } from '../api/queries';

type SlotTypes = Awaited<ReturnType<typeof loadSlotTypes>>;
type SlotRule = SlotTypes[number];

const loadSlotTypes = async () => (await unwrap(api.GET('/api/v1/media/slot-types'))).slotTypes;

function describeRule(rule: SlotRule): string {
  const parts = [
    `up to ${rule.maxItems} ${rule.kind === 'video' ? 'videos' : 'images'}`,
    rule.formats.join('/'),
  ];
  if (rule.sizes) parts.push(rule.sizes.map((s) => `${s.width}×${s.height}`).join(', ') + ' (either way up)');
  if (rule.range)
    parts.push(`each side ${rule.range.min}–${rule.range.max} px, long side ≤ ${rule.range.maxRatio}× short`);
  if (rule.alpha === 'forbidden') parts.push('no transparency');
  if (rule.alpha === 'required') parts.push('with transparency');
  if (rule.durationSeconds) parts.push(`${rule.durationSeconds.min}–${rule.durationSeconds.max} s`);
  parts.push(`≤ ${(rule.maxBytes / 1024 / 1024).toFixed(0)} MB`);
  return parts.join(' · ');
}

export function MediaEditor({
  session,
  projectId,
  store,
  locale,
}: {
  session: Session;
  projectId: string;
  store: Store;
  locale: string;
}) {
  const client = useQueryClient();
  const editable = canEdit(session, locale);
  const slotTypes = useQuery({ queryKey: keys.mediaSlotTypes(), queryFn: loadSlotTypes });
  const rules = (slotTypes.data ?? []).filter((rule) => rule.store === store);
  // The overview links to one slot of the locale: ?slot=APP_IPHONE_67.
  const [slotType, setSlotType] = useState<string | null>(() =>
    new URLSearchParams(location.search).get('slot'),
  );
  const current =
    (rules.some((r) => r.slotType === slotType) ? slotType : null) ?? rules[0]?.slotType ?? null;
  const rule = rules.find((r) => r.slotType === current);

  const media = useMediaLocale(projectId, store, locale);
  const slot = media.data?.slots.find((s) => s.slotType === current);
  const items = slot?.items ?? [];
  const filled = new Set(media.data?.slots.filter((s) => s.items.length > 0).map((s) => s.slotType));
  const refresh = () => client.invalidateQueries({ queryKey: keys.media(projectId) });
  const path = { projectId, store, locale, slotType: current ?? '' };

  const reorder = useMutation({
    mutationFn: (ids: string[]) =>
      unwrap(
        api.PUT('/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}/order', {
          params: { path },
          body: { items: ids },
        }),
      ),
    // The new order shows at once (the focus follows the moved file); the server's answer settles it.
    onMutate: (ids: string[]) => {
      client.setQueryData(keys.mediaLocale(projectId, store, locale), (old: typeof media.data) =>
        old === undefined
          ? old
          : {
              ...old,
              slots: old.slots.map((s) =>
                s.slotType !== current
                  ? s
                  : {
                      ...s,
                      items: ids
                        .map((id) => s.items.find((item) => item.id === id))
                        .filter((item) => item !== undefined),
                    },
              ),
            },
      );
    },
    onSettled: refresh,
  });
  const translations = useTranslations(projectId);
  const sourceLocale = translations.data?.sourceLocale ?? 'en-US';
  const source = useMediaLocale(projectId, store, sourceLocale);
  const sourceShas = source.data?.slots
    .find((s) => s.slotType === current)
    ?.items.map((item) => item.sha256)
    .join(',');
  const sameAsSource =
    locale !== sourceLocale && items.length > 0 && items.map((item) => item.sha256).join(',') === sourceShas;
  const remove = useMutation({
    mutationFn: (itemId: string) =>
      unwrap(
        api.DELETE('/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}/{itemId}', {
          params: { path: { ...path, itemId } },
        }),
      ),
    onSettled: refresh,
  });
  const copyToAll = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/media/copy', {
          params: { path: { projectId } },
          body: { from: { store, locale }, to: { store, locale: '*' }, slotTypes: [current!] },
        }),
      ),
    onSettled: refresh,
  });
  const [progress, setProgress] = useState<{ name: string; fraction: number } | null>(null);
  const upload = useMutation({
    mutationFn: async (files: File[]) => {
      for (const file of files) {
        setProgress({ name: file.name, fraction: 0 });
        await uploadFile(slotUrl(projectId, store, locale, current!), file, (fraction) =>
          setProgress({ name: file.name, fraction }),
        );
        await refresh();
      }
    },
    onSettled: () => {
      setProgress(null);
      void refresh();
    },
  });

  const [dragged, setDragged] = useState<string | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const pendingFocus = useRef(false);

  const [moved, setMoved] = useState<{ id: string; direction: 'earlier' | 'later'; note: string } | null>(
    null,
  );
  const move = (from: number, to: number, direction?: 'earlier' | 'later') => {
    if (to < 0 || to >= items.length || from === to) return;
    const ids = items.map((i) => i.id);
    const [id] = ids.splice(from, 1);
    ids.splice(to, 0, id!);
    const name = items[from]!.fileName;
    setMoved({
      id: id!,
      direction: direction ?? (to < from ? 'earlier' : 'later'),
      note: `Moved ${name} to place ${to + 1} of ${items.length}.`,
    });
    pendingFocus.current = direction !== undefined;
    reorder.mutate(ids);
  };
  // A keyboard move keeps the focus on the moved file's button (the other one at either end), once.
  useEffect(() => {
    if (!pendingFocus.current || moved === null || list.current === null) return;
    pendingFocus.current = false;
    const button = (direction: string) =>
      list.current!.querySelector<HTMLButtonElement>(
        `button[data-item="${moved.id}"][data-move="${direction}"]`,
      );
    const same = button(moved.direction);
    (same !== null && !same.disabled
      ? same
      : button(moved.direction === 'earlier' ? 'later' : 'earlier')
    )?.focus();
  }, [items, moved]);
  const onDrop = (event: DragEvent, target: number) => {
    event.preventDefault();
    const from = items.findIndex((i) => i.id === dragged);
    setDragged(null);
    if (from >= 0) move(from, target);
  };

  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>
        Screenshots and previews · {STORE_NAMES[store]} · {locale}
      </h1>
      <ScopeNote note={scopeNote(session, locale)} />
      <nav aria-label="Store">
        {STORES.filter((s) => s !== store).map((other) => (
          <Link key={other} href={`/projects/${projectId}/media/${other}/${encodeURIComponent(locale)}`}>
            Switch to {STORE_NAMES[other]}
          </Link>
        ))}
      </nav>
      <ErrorMessage error={slotTypes.error ?? media.error} />
      <label>
        Slot{' '}
        <select value={current ?? ''} onChange={(event) => setSlotType(event.target.value)}>
          {rules.map((r) => (
            <option key={r.slotType} value={r.slotType}>
              {r.name}
              {filled.has(r.slotType) ? ' ●' : ''}
            </option>
          ))}
        </select>
      </label>
      {rule && (
        <p className="hint" id="slot-rules">
          {rule.label}: {describeRule(rule)}
        </p>
      )}
      {sameAsSource && (
        <p className="state state-same" role="note">
          The same files as {sourceLocale}, in the same order.
        </p>
      )}
      {slot?.state === 'modified' && (
        <p className="state state-modified">Differs from the store: a push would change it.</p>
      )}
      {slot?.state === 'conflict' && slot.conflict && (
        <div className="state state-conflict" role="status">
          <p>
            The store changed these files too since the last sync. A push leaves this slot alone until you
            choose: any edit here keeps your files, or keep them as they are.
          </p>
          <p>In the store now:</p>
          <ol className="media-grid" aria-label="The store's files in order">
            {slot.conflict.map((sha) => (
              <li key={sha}>
                {slot.kind === 'image' ? (
                  <img src={`/api/v1/media/${sha}?thumb=1`} alt={`Store file ${sha.slice(0, 12)}`} />
                ) : (
                  <a href={`/api/v1/media/${sha}`}>Video {sha.slice(0, 12)}</a>
                )}
              </li>
            ))}
          </ol>
          {editable && (
            <button type="button" onClick={() => reorder.mutate(items.map((item) => item.id))}>
              Keep these files
            </button>
          )}
        </div>
      )}

      {items.length === 0 ? (
        <p>No files in this slot.</p>
      ) : (
        <ol className="media-grid" aria-label={`${current} files in order`} ref={list}>
          {items.map((item, index) => (
            <li
              key={item.id}
              draggable={editable}
              onDragStart={() => setDragged(item.id)}
              onDragOver={(event) => event.preventDefault()}
              onDrop={(event) => onDrop(event, index)}
              className={dragged === item.id ? 'dragging' : undefined}
            >
              {item.thumbnailUrl ? (
                <img src={item.thumbnailUrl} alt={`${index + 1}. ${item.fileName}`} loading="lazy" />
              ) : (
                <span className="video">▶ {item.fileName}</span>
              )}
              <span className="meta">
                {index + 1}. {item.fileName} · {item.width}×{item.height}
                {item.durationMs !== null ? ` · ${(item.durationMs / 1000).toFixed(1)} s` : ''}
              </span>
              {editable && (
                <span className="actions">
                  <button
                    type="button"
                    data-item={item.id}
                    data-move="earlier"
                    onClick={() => move(index, index - 1, 'earlier')}
                    disabled={index === 0}
                    aria-label={`Move ${item.fileName} earlier`}
                  >
                    ←
                  </button>
                  <button
                    type="button"
                    data-item={item.id}
                    data-move="later"
                    onClick={() => move(index, index + 1, 'later')}
                    disabled={index === items.length - 1}
                    aria-label={`Move ${item.fileName} later`}
                  >
                    →
                  </button>
                  <button
                    type="button"
                    onClick={() => remove.mutate(item.id)}
                    aria-label={`Remove ${item.fileName}`}
                  >
                    Remove
                  </button>
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      <p role="status" className="visually-hidden">
        {moved?.note}
      </p>
      <ErrorMessage error={reorder.error ?? remove.error} />

      {editable && current && (
        <>
          <label>
            Upload to {current}{' '}
            <input
              type="file"
              multiple
              accept={rule?.kind === 'video' ? 'video/mp4,video/quicktime,.m4v' : 'image/png,image/jpeg'}
              aria-describedby="slot-rules"
              onChange={(event) => {
                const files = [...(event.target.files ?? [])];
                event.target.value = '';
                if (files.length > 0) upload.mutate(files);
              }}
              disabled={upload.isPending}
            />
          </label>
          {progress && (
            <p role="status">
              Uploading {progress.name}…{' '}
              <progress max={1} value={progress.fraction} aria-label={`Uploading ${progress.name}`} />{' '}
              {Math.round(progress.fraction * 100)}%
            </p>
          )}
          <ErrorMessage error={upload.error} />
          <p>
            <BusyButton
              type="button"
              busy={copyToAll.isPending}
              busyLabel="Copying…"
              disabled={items.length === 0}
              onClick={() => copyToAll.mutate()}
            >
              Use these for all locales
            </BusyButton>
          </p>
          <ErrorMessage error={copyToAll.error} />
          {copyToAll.data && (
            <p role="status">Copied to {copyToAll.data.slots.map((s) => s.locale).join(', ')}.</p>
          )}
        </>
      )}
    </>
  );
}
