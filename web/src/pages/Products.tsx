/**
 * In-app purchases and subscriptions of a project (design.md §17): per store a table of products ×
 * locales saying where each has texts and what is pending, and an editor for one product in one
 * locale with a live counter per text against the limit the service checks (benefits: per line,
 * at most four lines). Saved texts are pending changes, reviewed and pushed with the rest.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useProduct, useProducts } from '../api/queries';
import { plainState } from '../plain-words';
import { Link } from '../router';
import { canEdit, scopeNote, type Session } from '../session';
import { BusyButton, ErrorMessage, ScopeNote, Section } from '../ui';

type Store = 'appstore' | 'playstore';
type Text = string | string[] | null;
type Selected = { store: Store; productId: string; locale: string };

const STORE_NAME: Record<Store, string> = { appstore: 'App Store', playstore: 'Google Play' };
const codePoints = (text: string) => [...text].length;
const asText = (value: Text) => (Array.isArray(value) ? value.join('\n') : (value ?? ''));

/** A field's words for people: "customAppName" → "custom app name". */
const fieldWords = (field: string) => field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

export function Products({ session, projectId }: { session: Session; projectId: string }) {
  const products = useProducts(projectId);
  const [selected, setSelected] = useState<Selected | null>(null);
  const list = products.data?.products ?? [];

  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>In-app purchases and subscriptions</h1>
      <ErrorMessage error={products.error} />
      {products.isPending && <p className="loading">Loading…</p>}
      {products.data !== undefined && list.length === 0 && (
        <p>No products yet: sync the project to read them from the stores.</p>
      )}
      {(['appstore', 'playstore'] as const).map((store) => {
        const own = list.filter((p) => p.store === store);
        if (own.length === 0) return null;
        const locales = [...new Set(own.flatMap((p) => Object.keys(p.locales)))].sort();
        return (
          <Section key={store} title={STORE_NAME[store]}>
            <div className="table-scroll">
              <table>
                <caption>{STORE_NAME[store]} products by locale; choose a cell to edit its texts</caption>
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col">State</th>
                    {locales.map((locale) => (
                      <th scope="col" key={locale}>
                        {locale}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {own.map((product) => (
                    <tr key={product.productId}>
                      <th scope="row">
                        {product.referenceName ?? product.productId}
                        <br />
                        <small>
                          {plainState(product.kind)} · {product.productId}
                        </small>
                      </th>
                      <td>{product.state === null ? '—' : plainState(product.state)}</td>
                      {locales.map((locale) => {
                        const has = product.locales[locale] !== undefined;
                        return (
                          <td key={locale}>
                            <button
                              type="button"
                              aria-pressed={
                                selected?.store === store &&
                                selected.productId === product.productId &&
                                selected.locale === locale
                              }
                              onClick={() => setSelected({ store, productId: product.productId, locale })}
                            >
                              {has ? 'Edit' : 'Add'}
                              <span className="visually-hidden">
                                {' '}
                                {product.productId} in {locale}
                              </span>
                            </button>
                            {has && product.states[locale] !== 'unchanged' && (
                              <span className={`state state-${product.states[locale]}`}>
                                {product.states[locale]}
                              </span>
                            )}
                          </td>
                        );
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Section>
        );
      })}
      {selected !== null && (
        <ProductEditor
          key={`${selected.store}/${selected.productId}/${selected.locale}`}
          session={session}
          projectId={projectId}
          selected={selected}
        />
      )}
      <p>
        Saved texts are pending changes: review and push them from the{' '}
        <Link href={`/projects/${projectId}`}>project</Link>.
      </p>
    </>
  );
}

/** One product in one locale: a text box per field with its live counter, saved together. */
function ProductEditor({
  session,
  projectId,
  selected,
}: {
  session: Session;
  projectId: string;
  selected: Selected;
}) {
  const { store, productId, locale } = selected;
  const queryClient = useQueryClient();
  const view = useProduct(projectId, store, productId, locale);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const editable = canEdit(session, locale);
  const fields = Object.entries(view.data?.fields ?? {});
  const valueOf = (field: string, saved: Text) => draft[field] ?? asText(saved);
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, Text> = {};
      for (const [field, rule] of fields) {
        const text = draft[field];
        if (text === undefined || text === asText(rule.value)) continue;
        body[field] =
          text === '' ? null : rule.maxItems !== undefined ? text.split('\n').filter((l) => l !== '') : text;
      }
      return unwrap(
        api.PATCH('/api/v1/projects/{projectId}/products/{store}/{productId}/{locale}', {
          params: { path: { projectId, store, productId, locale } },
          body,
        }),
      );
    },
    onSuccess: async () => {
      setDraft({});
      await queryClient.invalidateQueries({ queryKey: keys.products(projectId) });
      await queryClient.invalidateQueries({ queryKey: keys.diff(projectId) });
    },
  });
  const over = fields.some(([field, rule]) => {
    const text = valueOf(field, rule.value);
    const lines = rule.maxItems === undefined ? [text] : text.split('\n');
    return lines.some((line) => codePoints(line) > rule.limit) || (rule.maxItems ?? Infinity) < lines.length;
  });
  const changed = fields.some(
    ([field, rule]) => draft[field] !== undefined && draft[field] !== asText(rule.value),
  );

  return (
    <Section title={`${productId} · ${locale}`}>
      <ScopeNote note={scopeNote(session, locale)} />
      <ErrorMessage error={view.error} />
      {view.data !== undefined && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <p>
            {plainState(view.data.kind)} on {STORE_NAME[store]}
            {view.data.referenceName !== null && <> · {view.data.referenceName}</>}
          </p>
          {fields.map(([field, rule]) => {
            const id = `product-${field}`;
            const text = valueOf(field, rule.value);
            const lines = rule.maxItems === undefined ? [text] : text.split('\n');
            const longest = Math.max(0, ...lines.map(codePoints));
            const tooMany = rule.maxItems !== undefined && lines.length > rule.maxItems;
            return (
              <div className="note" key={field}>
                <label htmlFor={id}>
                  {fieldWords(field)}
                  {rule.required && ' (required)'}{' '}
                  {rule.state !== 'unchanged' && (
                    <span className={`state state-${rule.state}`}>{rule.state}</span>
                  )}
                </label>
                <textarea
                  id={id}
                  value={text}
                  rows={rule.maxItems === undefined ? 2 : rule.maxItems}
                  readOnly={!editable}
                  aria-describedby={`${id}-count`}
                  onChange={(e) => setDraft({ ...draft, [field]: e.target.value })}
                />
                <span
                  className={longest > rule.limit || tooMany ? 'counter over' : 'counter'}
                  id={`${id}-count`}
                >
                  {rule.maxItems === undefined
                    ? `${longest} / ${rule.limit}`
                    : `${lines.filter((l) => l !== '').length} of ${rule.maxItems} lines, longest ${longest} / ${rule.limit}`}
                </span>
                {rule.state === 'conflict' && (
                  <p>The store has: {asText(rule.storeValue ?? null) || '(nothing)'}</p>
                )}
              </div>
            );
          })}
          {editable && (
            <BusyButton type="submit" busy={save.isPending} disabled={!changed || over}>
              Save texts
            </BusyButton>
          )}
          <ErrorMessage error={save.error} />
        </form>
      )}
    </Section>
  );
}
