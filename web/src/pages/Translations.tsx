/**
 * Translations of a project (design.md §14). The overview counts, per target locale and store,
 * the fields missing, outdated, drafted and current; a locale's page shows each field's source
 * beside its translation — an outdated one highlighted with what changed in the source since it
 * was translated — with live counters against the store's limits, machine drafts to accept, and
 * XLIFF out to translators and back.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type ReactNode } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { codePoints, STORE_FIELDS, STORE_NAMES, type Store } from '../listing-rules';
import { Link } from '../router';
import { canEdit, coversLocale, scopeNote, type Session, type LocalePageProps } from '../session';
import { BusyButton, ErrorMessage, Section, ScopeNote } from '../ui';
import { keys } from '../api/keys';
import { useOrganization, useTranslationLocale, useTranslations } from '../api/queries';

/** A field's rule as the page needs it: a listing field's from the shared table, a product text's from the API. */
function ruleOfEntry(entry: Entry): { label: string; max?: number; singleLine?: boolean; list?: boolean } {
  if (entry.product === undefined) return STORE_FIELDS[entry.store][entry.field]!;
  const words = entry.product.field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return {
    label: `${words} · ${entry.product.productId}`,
    ...(entry.limit != null && { max: entry.limit }),
    list: entry.product.field === 'benefits',
  };
}

const STATES = ['missing', 'outdated', 'draft', 'current'] as const;

/** Words removed from and added to a text, for "what changed in the source since". */
function wordDiff(before: string, after: string): ReactNode[] {
  const a = before.split(/(\s+)/);
  const b = after.split(/(\s+)/);
  // Longest common subsequence of the words: small texts, a plain table is enough.
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const out: ReactNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(a[i]);
      i += 1;
      j += 1;
    } else if (j < b.length && (i === a.length || table[i]![j + 1]! >= table[i + 1]![j]!))
      out.push(<ins key={`i${i}-${j}`}>{b[j++]}</ins>);
    else out.push(<del key={`d${i}-${j}`}>{a[i++]}</del>);
  }
  return out;
}

export function TranslationsOverview({ session, projectId }: { session: Session; projectId: string }) {
  const status = useTranslations(projectId);
  const rows = new Map<string, Record<string, number>>();
  for (const item of status.data?.items ?? []) {
    const key = `${item.locale}\u0000${item.store}`;
    const row = rows.get(key) ?? { missing: 0, outdated: 0, draft: 0, current: 0 };
    row[item.state] = (row[item.state] ?? 0) + 1;
    rows.set(key, row);
  }
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>Translations</h1>
      <ErrorMessage error={status.error} />
      {status.data !== undefined && (
        <p>
          Source locale: <strong>{status.data.sourceLocale}</strong>. A translation is outdated when its
          source changed since it was translated.
        </p>
      )}
      {rows.size === 0 ? (
        status.data !== undefined && <p>Nothing to translate yet: add a listing in another locale.</p>
      ) : (
        <table aria-label="Translation states">
          <thead>
            <tr>
              <th>Locale</th>
              <th>Store</th>
              <th>Done</th>
              {STATES.map((s) => (
                <th key={s}>{s}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {/* A member's own languages first (design.md §16), otherwise in the order they came. */}
            {[...rows]
              .sort(([a], [b]) => {
                const mine = (key: string) => (coversLocale(session, key.split('\u0000')[0]!) ? 0 : 1);
                return mine(a) - mine(b);
              })
              .map(([key, counts]) => {
                const [locale, store] = key.split('\u0000') as [string, Store];
                return (
                  <tr key={key}>
                    <td>
                      <Link href={`/projects/${projectId}/translations/${locale}`}>{locale}</Link>
                    </td>
                    <td>{STORE_NAMES[store]}</td>
                    <td>
                      <Progress counts={counts} label={`${locale} ${STORE_NAMES[store]}`} />
                    </td>
                    {STATES.map((s) => (
                      <td key={s} className={counts[s] ? `state-${s}` : undefined}>
                        {counts[s]}
                      </td>
                    ))}
                  </tr>
                );
              })}
          </tbody>
        </table>
      )}
      <p>
        <a href={`/api/v1/projects/${projectId}/translations.zip`} download>
          Download every locale as XLIFF (zip)
        </a>
      </p>
      {!canEdit(session) && <p>Viewers read translations; members translate and accept drafts.</p>}
    </>
  );
}

/** Fields translated and current of all, as a bar and in words. */
function Progress({ counts, label }: { counts: Record<string, number>; label: string }) {
  const total = STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
  const done = counts.current ?? 0;
  return (
    <span className="progress">
      <progress max={total} value={done} aria-label={`${label}: ${done} of ${total} current`} /> {done}/
      {total}
    </span>
  );
}

/** What the table shows: every field, the ones left to do, or one state. */
const SHOWN = {
  all: 'All fields',
  todo: 'Left to do (missing, outdated, drafts)',
  missing: 'Missing',
  outdated: 'Outdated',
  draft: 'Drafts',
  current: 'Current',
} as const;
type Shown = keyof typeof SHOWN;
const TO_DO = new Set(['missing', 'outdated', 'draft']);

function isShown(entry: Entry, shown: Shown, search: string): boolean {
  if (shown === 'todo' ? !TO_DO.has(entry.state) : shown !== 'all' && entry.state !== shown) return false;
  const needle = search.trim().toLocaleLowerCase();
  if (needle === '') return true;
  const label = ruleOfEntry(entry).label;
  return [label, entry.source, entry.target, entry.draft?.text].some((text) =>
    text?.toLocaleLowerCase().includes(needle),
  );
}

type Entry = {
  store: Store;
  locale: string;
  field: string;
  state: string;
  source: string | null;
  target: string | null;
  translatedFrom: string | null;
  draft: {
    text: string;
    length: number;
    limit: number | null;
    overLimit: boolean;
    note: string | null;
  } | null;
  /** A product text: its product and field, and its limit. */
  product?: { productId: string; kind: string; field: string };
  limit?: number | null;
};

/** One field: source, the target being edited with its counter, the draft waiting. */
function FieldRow({
  projectId,
  entry,
  editable,
  onChanged,
}: {
  projectId: string;
  entry: Entry;
  editable: boolean;
  onChanged: () => Promise<unknown>;
}) {
  const rule = ruleOfEntry(entry);
  const [text, setText] = useState(entry.target ?? '');
  // A list (benefits) is counted per line.
  const length = Math.max(0, ...text.split(rule.list ? '\n' : '\u0000').map(codePoints));
  const over = rule.max !== undefined && length > rule.max;
  const id = `${entry.store}-${entry.field}`;
  const save = useMutation({
    mutationFn: (): Promise<unknown> =>
      entry.product === undefined
        ? unwrap(
            api.PATCH('/api/v1/projects/{projectId}/listings/{store}/{locale}', {
              params: { path: { projectId, store: entry.store, locale: entry.locale } },
              body: { [entry.field]: text === '' ? null : text },
            }),
          )
        : unwrap(
            api.PATCH('/api/v1/projects/{projectId}/products/{store}/{productId}/{locale}', {
              params: {
                path: {
                  projectId,
                  store: entry.store,
                  productId: entry.product.productId,
                  locale: entry.locale,
                },
              },
              body: { [entry.product.field]: text === '' ? null : text },
            }),
          ),
    onSuccess: onChanged,
  });
  const accept = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/translations/{locale}/accept', {
          params: { path: { projectId, locale: entry.locale } },
          body: { store: entry.store, fields: [entry.field] },
        }),
      ),
    onSuccess: onChanged,
  });
  return (
    <tr className={`translation state-row-${entry.state}`} data-field={id} data-state={entry.state}>
      <th scope="row">
        {STORE_NAMES[entry.store]} · {rule.label}
        <br />
        <span className={`state state-${entry.state}`}>{entry.state}</span>
      </th>
      <td lang="und">
        {entry.state === 'outdated' && entry.translatedFrom !== null && entry.source !== null ? (
          <p className="source-diff" aria-label="Changes to the source since it was translated">
            {wordDiff(entry.translatedFrom, entry.source)}
          </p>
        ) : (
          <p>{entry.source}</p>
        )}
      </td>
      <td>
        <label htmlFor={id} className="visually-hidden">
          {rule.label} ({entry.locale})
        </label>
        <textarea
          id={id}
          value={text}
          rows={rule.singleLine ? 1 : 3}
          readOnly={!editable}
          aria-describedby={`${id}-count`}
          onChange={(e) => setText(e.target.value)}
        />
        {rule.max !== undefined && (
          <span className={over ? 'counter over' : 'counter'} id={`${id}-count`}>
            {length} / {rule.max}
          </span>
        )}
        {editable && (
          <BusyButton
            type="button"
            busy={save.isPending}
            disabled={text === (entry.target ?? '') || over}
            onClick={() => save.mutate()}
          >
            Save
          </BusyButton>
        )}
        <ErrorMessage error={save.error} />
        {entry.draft !== null && (
          <div className="draft">
            <p>
              Machine draft ({entry.draft.length}
              {entry.draft.limit !== null && ` / ${entry.draft.limit}`}
              {entry.draft.overLimit && ', over the limit: shorten it before it can be used'}):
            </p>
            <blockquote>{entry.draft.text}</blockquote>
            {entry.draft.note !== null && <p>{entry.draft.note}</p>}
            {editable && (
              <>
                <BusyButton
                  type="button"
                  busy={accept.isPending}
                  disabled={entry.draft.overLimit}
                  onClick={() => accept.mutate()}
                >
                  Accept draft
                </BusyButton>
                <button type="button" onClick={() => setText(entry.draft!.text)}>
                  Edit draft
                </button>
              </>
            )}
            <ErrorMessage error={accept.error} />
          </div>
        )}
      </td>
    </tr>
  );
}

export function TranslationLocale({ session, projectId, locale }: LocalePageProps) {
  const queryClient = useQueryClient();
  const editable = canEdit(session, locale);
  const detail = useTranslationLocale(projectId, locale);
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.translations(projectId) });
  const machine = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/translations/machine', {
          params: { path: { projectId } },
          body: { targetLocales: [locale] },
        }),
      ),
    onSuccess: refresh,
  });
  const upload = useMutation({
    mutationFn: async (file: File) => {
      const res = await fetch(
        `/api/v1/projects/${projectId}/translations/${encodeURIComponent(locale)}.xlf`,
        {
          method: 'PUT',
          credentials: 'same-origin',
          headers: { 'X-Appmeta-CSRF': '1', 'Content-Type': 'application/xliff+xml' },
          body: await file.text(),
        },
      );
      const body = (await res.json()) as {
        data?: { imported: unknown[]; ignored: number };
        error?: { code: string; message: string; details?: { field: string; message: string }[] };
      };
      if (!res.ok || body.error !== undefined) {
        throw new ApiError(
          res.status,
          body.error?.code ?? 'ERROR',
          body.error?.message ?? 'failed',
          body.error?.details,
        );
      }
      return body.data!;
    },
    onSuccess: refresh,
  });
  const acceptAll = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/translations/{locale}/accept', {
          params: { path: { projectId, locale } },
          body: {},
        }),
      ),
    onSuccess: refresh,
  });
  const organization = useOrganization();
  const keptTerms = organization.data?.settings.doNotTranslate ?? [];
  const [shown, setShown] = useState<Shown>('all');
  const [search, setSearch] = useState('');
  const [nextNote, setNextNote] = useState<string | null>(null);
  const lastField = useRef<string | null>(null);
  const entries = (detail.data?.entries ?? []) as Entry[];
  const visible = entries.filter((entry) => isShown(entry, shown, search));
  const drafts = entries.filter((entry) => entry.draft !== null).length;
  /** Moves the focus to the next field left to do after the one in focus (from the top, at the end). */
  const focusNext = () => {
    const rows = [...document.querySelectorAll<HTMLElement>('table.translations tr[data-state]')];
    const todo = rows.filter((row) => TO_DO.has(row.dataset.state ?? ''));
    if (todo.length === 0) return setNextNote('Nothing left to do among the fields shown.');
    // The button has the focus now: count from the field that had it last.
    const at = rows.findIndex((row) => row.dataset.field === lastField.current);
    const next = todo.find((row) => rows.indexOf(row) > at) ?? todo[0]!;
    setNextNote(null);
    next.querySelector('textarea')?.focus();
  };
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}/translations`}>← Translations</Link>
      </p>
      <h1>
        Translations: {detail.data?.sourceLocale ?? '…'} → {locale}
      </h1>
      <ScopeNote note={scopeNote(session, locale)} />
      <ErrorMessage error={detail.error} />
      <Section title="Translators">
        <p>
          <a href={`/api/v1/projects/${projectId}/translations/${locale}.xlf`} download>
            Download XLIFF 2.0
          </a>{' '}
          ·{' '}
          <a href={`/api/v1/projects/${projectId}/translations/${locale}.xlf?version=1.2`} download>
            XLIFF 1.2
          </a>
        </p>
        {editable && (
          <>
            <label htmlFor="xliff-upload">Import a translated XLIFF</label>
            <input
              id="xliff-upload"
              type="file"
              accept=".xlf,.xliff,application/xliff+xml"
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file !== undefined) upload.mutate(file);
              }}
            />
            {upload.data !== undefined && (
              <p role="status">
                Imported {upload.data.imported.length} units; {upload.data.ignored} untouched.
              </p>
            )}
            <ErrorMessage error={upload.error} />
            <p>
              <BusyButton type="button" busy={machine.isPending} onClick={() => machine.mutate()}>
                Machine-translate missing and outdated fields
              </BusyButton>
            </p>
            {machine.data !== undefined && (
              <div role="status">
                <p>
                  {machine.data.drafts.length} drafts ({machine.data.usage.characters} characters).
                </p>
                {machine.data.errors.length > 0 && (
                  <ul>
                    {machine.data.errors.map((e) => (
                      <li key={`${e.store}-${e.field}`}>
                        {STORE_NAMES[e.store]} {e.field}: {e.message}
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            )}
            <ErrorMessage error={machine.error} />
            {drafts > 0 && (
              <p>
                <BusyButton type="button" busy={acceptAll.isPending} onClick={() => acceptAll.mutate()}>
                  Accept all {drafts} drafts
                </BusyButton>
              </p>
            )}
            {acceptAll.data !== undefined && (
              <p role="status">
                Accepted {acceptAll.data.accepted.length}
                {acceptAll.data.skipped.length > 0 &&
                  `; left ${acceptAll.data.skipped.length} over their limit to shorten`}
                .
              </p>
            )}
            <ErrorMessage error={acceptAll.error} />
          </>
        )}
      </Section>
      {keptTerms.length > 0 && (
        <p role="note" className="kept-terms">
          Kept as written in every language (the organization’s do-not-translate terms):{' '}
          {keptTerms.map((term, i) => (
            <span key={term}>
              {i > 0 && ', '}
              <strong lang="und">{term}</strong>
            </span>
          ))}
          .
        </p>
      )}
      <div className="filters" role="search" aria-label="Find fields">
        <label htmlFor="translation-search">Search</label>
        <input
          id="translation-search"
          type="search"
          value={search}
          placeholder="A word in a field, its source or its draft"
          onChange={(e) => setSearch(e.target.value)}
        />
        <label htmlFor="translation-shown">Show</label>
        <select id="translation-shown" value={shown} onChange={(e) => setShown(e.target.value as Shown)}>
          {Object.entries(SHOWN).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <button type="button" onClick={focusNext}>
          Next untranslated field
        </button>
      </div>
      {nextNote !== null && <p role="status">{nextNote}</p>}
      {entries.length > 0 && (
        <p role="status" className="hint">
          Showing {visible.length} of {entries.length} fields.
        </p>
      )}
      <table
        className="translations"
        aria-label={`Source and ${locale}`}
        onFocus={(event) => {
          lastField.current = event.target.closest('tr')?.dataset.field ?? lastField.current;
        }}
      >
        <thead>
          <tr>
            <th>Field</th>
            <th>Source ({detail.data?.sourceLocale})</th>
            <th>{locale}</th>
          </tr>
        </thead>
        <tbody>
          {visible.map((entry) => (
            <FieldRow
              key={`${entry.store}-${entry.field}-${entry.target ?? ''}-${entry.draft?.text ?? ''}`}
              projectId={projectId}
              entry={entry}
              editable={editable}
              onChanged={refresh}
            />
          ))}
        </tbody>
      </table>
    </>
  );
}
