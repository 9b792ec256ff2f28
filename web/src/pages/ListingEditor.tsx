import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import {
  checkFieldValue,
  codePoints,
  listingWarnings,
  STORE_FIELDS,
  STORE_NAMES,
  STORES,
  utf8Bytes,
  type FieldRule,
  type Store,
} from '../listing-rules';
import { Link, setLeaveGuard } from '../router';
import { canEdit, scopeNote, type LocalePageProps } from '../session';
import { BusyButton, ErrorMessage, when, ScopeNote } from '../ui';
import { keys } from '../api/keys';
import { useLocales } from '../api/queries';

type Values = Record<string, string>;
type FieldView = { value: string | null; base: string | null; state: string; storeValue?: string | null };

const LEAVE_MESSAGE = 'You have unsaved changes. Leave this page and lose them?';

function useListing(projectId: string, store: Store, locale: string, valid: boolean) {
  return useQuery({
    queryKey: keys.listing(projectId, store, locale),
    enabled: valid,
    queryFn: async () => {
      try {
        const data = await unwrap(
          api.GET('/api/v1/projects/{projectId}/listings/{store}/{locale}', {
            params: { path: { projectId, store, locale } },
          }),
        );
        return data.listing.fields;
      } catch (error) {
        // No listing yet for this locale: the editor starts empty and Save creates it.
        if (error instanceof ApiError && error.status === 404) return {};
        throw error;
      }
    },
  });
}

const valuesOf = (store: Store, fields: Record<string, FieldView> | undefined): Values =>
  Object.fromEntries(Object.keys(STORE_FIELDS[store]).map((f) => [f, fields?.[f]?.value ?? '']));

export function ListingEditor({ session, projectId, locale }: LocalePageProps) {
  const client = useQueryClient();
  const editable = canEdit(session, locale);
  const locales = useLocales();
  const validIn = (store: Store) => locales.data?.stores[store].some((l) => l.code === locale) ?? false;
  const appstore = useListing(projectId, 'appstore', locale, validIn('appstore'));
  const playstore = useListing(projectId, 'playstore', locale, validIn('playstore'));
  const loaded = { appstore: appstore.data, playstore: playstore.data };

  const [drafts, setDrafts] = useState<Record<Store, Values> | null>(null);
  const saved = useMemo(
    () => ({
      appstore: valuesOf('appstore', appstore.data),
      playstore: valuesOf('playstore', playstore.data),
    }),
    [appstore.data, playstore.data],
  );
  useEffect(() => {
    if (drafts === null && !appstore.isFetching && !playstore.isFetching && locales.data) setDrafts(saved);
  }, [drafts, saved, appstore.isFetching, playstore.isFetching, locales.data]);

  const changed = (store: Store) =>
    drafts === null
      ? {}
      : Object.fromEntries(Object.entries(drafts[store]).filter(([f, v]) => v !== saved[store][f]));
  const dirty = STORES.some((s) => Object.keys(changed(s)).length > 0);
  const problems =
    drafts === null
      ? []
      : STORES.filter(validIn).flatMap((store) =>
          Object.entries(drafts[store]).flatMap(([field, value]) => {
            const problem = checkFieldValue(store, field, value === '' ? null : value);
            return problem === null ? [] : [{ store, field, message: problem.message }];
          }),
        );

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    setLeaveGuard(() => window.confirm(LEAVE_MESSAGE));
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      setLeaveGuard(null);
    };
  }, [dirty]);

  const refresh = () => client.invalidateQueries({ predicate: (q) => q.queryKey.includes(projectId) });
  const patch = (store: Store, body: Record<string, string | null>) =>
    unwrap(
      api.PATCH('/api/v1/projects/{projectId}/listings/{store}/{locale}', {
        params: { path: { projectId, store, locale } },
        body,
      }),
    );
  const save = useMutation({
    mutationFn: async () => {
      const warnings: { field: string; message: string }[] = [];
      for (const store of STORES) {
        const fields = changed(store);
        if (Object.keys(fields).length === 0) continue;
        const result = await patch(
          store,
          Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, v === '' ? null : v])),
        );
        warnings.push(...result.warnings);
      }
      return warnings;
    },
    onSuccess: async () => {
      await refresh();
      setDrafts(null);
    },
  });
  const resolve = useMutation({
    mutationFn: ({ store, field, value }: { store: Store; field: string; value: string | null }) =>
      patch(store, { [field]: value }),
    onSuccess: async () => {
      await refresh();
      setDrafts(null);
    },
  });
  const copy = useMutation({
    mutationFn: (from: Store) =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/listings/copy', {
          params: { path: { projectId } },
          body: {
            from: { store: from, locale },
            to: { store: from === 'appstore' ? 'playstore' : 'appstore', locale },
          },
        }),
      ),
    onSuccess: async () => {
      await refresh();
      setDrafts(null);
    },
  });

  if (locales.isPending || drafts === null) return <p className="loading">Loading…</p>;
  const error = locales.error ?? appstore.error ?? playstore.error;
  if (error) return <ErrorMessage error={error} />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (problems.length === 0) save.mutate();
  };
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Back to the project</Link>
      </p>
      <h1>Listing {locale}</h1>
      <ScopeNote note={scopeNote(session, locale)} />
      <form onSubmit={submit} aria-label={`Listing ${locale}`}>
        <div className="stores">
          {STORES.map((store) => (
            <fieldset key={store} disabled={!validIn(store)}>
              <legend>{STORE_NAMES[store]}</legend>
              {!validIn(store) ? (
                <p>
                  {locale} is not a {STORE_NAMES[store]} locale.
                </p>
              ) : (
                <>
                  {Object.entries(STORE_FIELDS[store]).map(([field, rule]) => (
                    <Field
                      key={field}
                      store={store}
                      field={field}
                      rule={rule}
                      warnings={warningsOf(store, drafts[store])
                        .filter((w) => w.field === field)
                        .map((w) => w.message)}
                      value={drafts[store][field] ?? ''}
                      view={loaded[store]?.[field]}
                      readOnly={!editable}
                      onChange={(value) =>
                        setDrafts({ ...drafts, [store]: { ...drafts[store], [field]: value } })
                      }
                      onResolve={(value) => resolve.mutate({ store, field, value })}
                      projectId={projectId}
                      locale={locale}
                      onReverted={async () => {
                        await refresh();
                        setDrafts(null);
                      }}
                    />
                  ))}
                  {editable && validIn(store === 'appstore' ? 'playstore' : 'appstore') && (
                    <BusyButton type="button" busy={copy.isPending} onClick={() => copy.mutate(store)}>
                      Copy to {STORE_NAMES[store === 'appstore' ? 'playstore' : 'appstore']}
                    </BusyButton>
                  )}
                </>
              )}
            </fieldset>
          ))}
        </div>
        {editable && (
          <div className="actions sticky">
            <BusyButton type="submit" busy={save.isPending} disabled={!dirty || problems.length > 0}>
              Save
            </BusyButton>
            {problems.length > 0 && (
              <p role="alert">
                Cannot save: {problems.length === 1 ? '1 field breaks' : `${problems.length} fields break`} a
                store rule.
              </p>
            )}
            {!dirty && save.isSuccess && <p role="status">Saved.</p>}
          </div>
        )}
        <ErrorMessage error={save.error ?? resolve.error ?? copy.error} />
        {save.data && save.data.length > 0 && (
          <ul aria-label="Warnings">
            {save.data.map((w, i) => (
              <li key={i}>
                {w.field}: {w.message}
              </li>
            ))}
          </ul>
        )}
      </form>
    </>
  );
}

function Counter({
  store,
  field,
  rule,
  value,
}: {
  store: Store;
  field: string;
  rule: FieldRule;
  value: string;
}) {
  if (rule.kind === 'url') return null;
  const length = codePoints(value);
  const over = rule.max !== undefined && length > rule.max;
  return (
    <span className={over ? 'counter over' : 'counter'} id={`${store}-${field}-count`}>
      {length} / {rule.max}
      {rule.kind === 'keywords' && ` · ${utf8Bytes(value)} bytes`}
    </span>
  );
}

function Field(props: {
  store: Store;
  field: string;
  rule: FieldRule;
  value: string;
  view: FieldView | undefined;
  /** Advice on the field's value (it still saves), shown at the field. */
  warnings: string[];
  readOnly: boolean;
  onChange: (value: string) => void;
  onResolve: (value: string | null) => void;
  projectId: string;
  locale: string;
  onReverted: () => Promise<void>;
}) {
  const { store, field, rule, value, view } = props;
  const id = `${store}-${field}`;
  const problem = checkFieldValue(store, field, value === '' ? null : value);
  const describedBy = [
    rule.kind !== 'url' && `${id}-count`,
    problem && `${id}-error`,
    props.warnings.length > 0 && `${id}-warnings`,
  ]
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    value,
    readOnly: props.readOnly,
    'aria-invalid': problem !== null,
    'aria-describedby': describedBy || undefined,
    onChange: (e: { target: { value: string } }) => props.onChange(e.target.value),
  };
  const multiline = rule.kind === 'text' && rule.singleLine !== true;
  return (
    <div className="field">
      <div className="field-head">
        <label htmlFor={id}>{rule.label}</label>
        <Counter store={store} field={field} rule={rule} value={value} />
      </div>
      {multiline ? (
        <textarea {...common} rows={rule.max !== undefined && rule.max > 200 ? 6 : 2} />
      ) : (
        <input {...common} type={rule.kind === 'url' ? 'url' : 'text'} />
      )}
      {problem && (
        <p className="field-error" id={`${id}-error`}>
          {rule.label} {problem.message}
        </p>
      )}
      {props.warnings.length > 0 && (
        <ul className="warnings" id={`${id}-warnings`} aria-label={`${rule.label} warnings`}>
          {props.warnings.map((message) => (
            <li key={message}>
              {rule.label} {message}
            </li>
          ))}
        </ul>
      )}
      {view?.state === 'conflict' && (
        <div className="conflict" role="group" aria-label={`Conflict in ${rule.label}`}>
          <p>
            Changed here and in the store. The store now has: <q>{view.storeValue ?? '(empty)'}</q>
          </p>
          {!props.readOnly && (
            <>
              <button type="button" onClick={() => props.onResolve(view.value)}>
                Keep mine
              </button>
              <button type="button" onClick={() => props.onResolve(view.storeValue ?? null)}>
                Take the store’s
              </button>
            </>
          )}
        </div>
      )}
      <History {...props} />
    </div>
  );
}

function History({
  store,
  field,
  rule,
  projectId,
  locale,
  readOnly,
  onReverted,
}: Parameters<typeof Field>[0]) {
  const [open, setOpen] = useState(false);
  const history = useQuery({
    queryKey: keys.history(projectId, store, locale),
    enabled: open,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/listings/{store}/{locale}/history', {
          params: { path: { projectId, store, locale }, query: { limit: 100 } },
        }),
      ),
  });
  const revert = useMutation({
    mutationFn: (historyId: string) =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/listings/{store}/{locale}/revert', {
          params: { path: { projectId, store, locale } },
          body: { historyId },
        }),
      ),
    onSuccess: onReverted,
  });
  const entries = history.data?.entries.filter((e) => e.field === field) ?? [];
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>History of {rule.label}</summary>
      {history.isPending && open && <p>Loading…</p>}
      {open && history.data && entries.length === 0 && <p>No changes yet.</p>}
      <ol>
        {entries.map((entry) => (
          <li key={entry.id}>
            {when(entry.createdAt)} · {entry.actor.name ?? 'a former member'} ({entry.source}):{' '}
            <q>{entry.old ?? '—'}</q> → <q>{entry.new ?? '—'}</q>
            {!readOnly && (
              <button type="button" onClick={() => revert.mutate(entry.id)} disabled={revert.isPending}>
                Undo this change
              </button>
            )}
          </li>
        ))}
      </ol>
      <ErrorMessage error={revert.error ?? history.error} />
    </details>
  );
}

/** The stores' advice on a listing as it stands in the editor (the server's own rule table). */
const warningsOf = (store: Store, values: Values) =>
  listingWarnings(
    store,
    Object.fromEntries(Object.entries(values).map(([f, v]) => [f, v === '' ? null : v])),
  );
