/**
 * App details and App Review information of a project (design.md §19): per store a form of its
 * details, each with its state against the store and its rule (a category from Apple's list, a
 * phone with its country code). The demo account password shows only whether it is set; an admin
 * may replace it. Saved details are pending changes, reviewed and pushed with the rest.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { APP_CATEGORIES, DETAIL_FIELDS, type DetailRule } from '../../../src/shared/detail-fields';
import { Link } from '../router';
import { canEdit, isAdmin, type Session } from '../session';
import { BusyButton, ErrorMessage, Section } from '../ui';

type Store = 'appstore' | 'playstore';
const STORE_NAME: Record<Store, string> = { appstore: 'App Store', playstore: 'Google Play' };

export function Details({ session, projectId }: { session: Session; projectId: string }) {
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>App details</h1>
      <p>
        Copyright, categories and App Review information; Google Play contact details and default language.
      </p>
      {(['appstore', 'playstore'] as const).map((store) => (
        <StoreDetails key={store} session={session} projectId={projectId} store={store} />
      ))}
    </>
  );
}

/** A detail's value as the form holds it: text ("true"/"false" for a flag). */
function flat(details: Record<string, unknown>): Record<string, string | { set: boolean } | null> {
  const out: Record<string, string | { set: boolean } | null> = {};
  for (const [field, value] of Object.entries(details)) {
    if (field === 'review' && value !== null && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value as Record<string, unknown>))
        out[`review.${name}`] =
          typeof inner === 'boolean' ? String(inner) : (inner as string | { set: boolean } | null);
    } else out[field] = value as string | null;
  }
  return out;
}

function StoreDetails({ session, projectId, store }: { session: Session; projectId: string; store: Store }) {
  const client = useQueryClient();
  const view = useQuery({
    queryKey: [...keys.project(projectId), 'details', store] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/details/{store}', { params: { path: { projectId, store } } }),
      ),
  });
  const [draft, setDraft] = useState<Record<string, string>>({});
  const editable = canEdit(session);
  const values = flat(view.data?.details ?? {});
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = {};
      const review: Record<string, unknown> = {};
      for (const [field, text] of Object.entries(draft)) {
        const value = field === 'review.demoAccountRequired' ? text === 'true' : text === '' ? null : text;
        if (field.startsWith('review.')) review[field.slice('review.'.length)] = value;
        else body[field] = value;
      }
      if (Object.keys(review).length > 0) body.review = review;
      return unwrap(
        api.PATCH('/api/v1/projects/{projectId}/details/{store}', {
          params: { path: { projectId, store } },
          body: body as never,
        }),
      );
    },
    onSuccess: async () => {
      setDraft({});
      await client.invalidateQueries({ queryKey: [...keys.project(projectId), 'details', store] });
      await client.invalidateQueries({ queryKey: keys.diff(projectId) });
    },
  });
  if (view.error !== null && view.error !== undefined) {
    return (
      <Section title={STORE_NAME[store]}>
        <ErrorMessage error={view.error} />
      </Section>
    );
  }
  return (
    <Section title={STORE_NAME[store]}>
      {view.data !== undefined && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          {Object.entries(DETAIL_FIELDS[store]).map(([field, rule]) => (
            <DetailInput
              key={field}
              id={`${store}-${field}`}
              rule={rule}
              value={values[field] ?? null}
              draft={draft[field]}
              state={view.data.states[field] ?? 'unchanged'}
              disabled={!editable || (rule.kind === 'secret' && !isAdmin(session))}
              onChange={(text) => setDraft({ ...draft, [field]: text })}
            />
          ))}
          {editable && (
            <BusyButton type="submit" busy={save.isPending} disabled={Object.keys(draft).length === 0}>
              Save {STORE_NAME[store]} details
            </BusyButton>
          )}
          <ErrorMessage error={save.error} />
        </form>
      )}
    </Section>
  );
}

function DetailInput(props: {
  id: string;
  rule: DetailRule;
  value: string | { set: boolean } | null;
  draft: string | undefined;
  state: string;
  disabled: boolean;
  onChange: (text: string) => void;
}) {
  const { id, rule, value, draft, state, disabled, onChange } = props;
  const label = (
    <label htmlFor={id}>
      {rule.label} {state !== 'unchanged' && <span className={`state state-${state}`}>{state}</span>}
    </label>
  );
  if (rule.kind === 'secret') {
    const set = value !== null && typeof value === 'object' && value.set;
    return (
      <div className="note">
        {label}
        <input
          id={id}
          type="password"
          autoComplete="new-password"
          placeholder={set ? 'Set (hidden) — type to replace' : 'Not set'}
          value={draft ?? ''}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
        />
      </div>
    );
  }
  const text = draft ?? (typeof value === 'string' ? value : '');
  if (rule.kind === 'category' || rule.kind === 'boolean') {
    const options = rule.kind === 'category' ? APP_CATEGORIES : ['true', 'false'];
    return (
      <div className="note">
        {label}
        <select id={id} value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
          <option value="">—</option>
          {options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </div>
    );
  }
  return (
    <div className="note">
      {label}
      {rule.kind === 'text' && (rule.max ?? 0) > 200 ? (
        <textarea
          id={id}
          value={text}
          rows={3}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input id={id} value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />
      )}
    </div>
  );
}
