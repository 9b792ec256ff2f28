/**
 * The texts of a page or an event in one locale: a text box per field with a live counter against
 * the limit the service checks, saved together. Read-only, with the store's reason, when App Store
 * Connect refuses changes in the item's state, or when the member may not edit the locale.
 */
import { useState } from 'react';
import { BusyButton, ErrorMessage } from '../../ui';

export interface TextFieldView {
  value: string | null;
  state: 'unchanged' | 'modified' | 'conflict';
  storeValue?: string | null;
  limit: number;
}

const codePoints = (text: string) => [...text].length;
/** A field's words for people: "shortDescription" → "short description". */
const fieldWords = (field: string) => field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

export function TextsForm({
  idPrefix,
  fields,
  editable,
  reason,
  busy,
  error,
  onSave,
}: {
  idPrefix: string;
  fields: Record<string, TextFieldView>;
  /** The member may edit this locale. */
  editable: boolean;
  /** Why the store refuses changes now; null when it takes them. */
  reason: string | null;
  busy: boolean;
  error: unknown;
  onSave: (changed: Record<string, string | null>, done: () => void) => void;
}) {
  const [draft, setDraft] = useState<Record<string, string>>({});
  const writable = editable && reason === null;
  const entries = Object.entries(fields);
  const valueOf = (field: string, saved: string | null) => draft[field] ?? saved ?? '';
  const changed = entries.filter(
    ([field, view]) => draft[field] !== undefined && draft[field] !== (view.value ?? ''),
  );
  const over = entries.some(([field, view]) => codePoints(valueOf(field, view.value)) > view.limit);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSave(
          Object.fromEntries(changed.map(([field]) => [field, draft[field] === '' ? null : draft[field]!])),
          () => setDraft({}),
        );
      }}
    >
      {reason !== null && (
        <p className="note" role="note">
          Read-only: {reason}
        </p>
      )}
      {entries.map(([field, view]) => {
        const id = `${idPrefix}-${field}`;
        const text = valueOf(field, view.value);
        return (
          <div className="note" key={field}>
            <label htmlFor={id}>
              {fieldWords(field)}{' '}
              {view.state !== 'unchanged' && (
                <span className={`state state-${view.state}`}>{view.state}</span>
              )}
            </label>
            <textarea
              id={id}
              value={text}
              rows={2}
              readOnly={!writable}
              aria-describedby={`${id}-count`}
              onChange={(e) => setDraft({ ...draft, [field]: e.target.value })}
            />
            <span className={codePoints(text) > view.limit ? 'counter over' : 'counter'} id={`${id}-count`}>
              {codePoints(text)} / {view.limit}
            </span>
            {view.state === 'conflict' && <p>The store has: {view.storeValue ?? '(nothing)'}</p>}
          </div>
        );
      })}
      {writable && (
        <BusyButton type="submit" busy={busy} disabled={changed.length === 0 || over}>
          Save texts
        </BusyButton>
      )}
      <ErrorMessage error={error} />
    </form>
  );
}
