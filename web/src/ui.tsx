/** Small shared pieces of the pages: errors, busy buttons, copy buttons, dates. */
import { useState, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode } from 'react';
import { ApiError } from './api/client';
import { fieldLabel, withLabels } from './plain-words';

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const details = error instanceof ApiError ? error.details : [];
  // The server names fields as the API spells them; a person reads them by their labels.
  const message =
    error instanceof Error
      ? withLabels(
          error.message,
          details.map((d) => d.field),
        )
      : 'Something went wrong';
  return (
    <div role="alert" className="error">
      <p>{message}</p>
      {details.length > 0 && (
        <ul>
          {details.map((d, i) => (
            <li key={i}>
              <strong>{fieldLabel(d.field)}</strong>: {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A button that shows it is working and cannot be pressed twice meanwhile. */
export function BusyButton({
  busy,
  busyLabel,
  children,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean; busyLabel?: string; children: ReactNode }) {
  return (
    <button {...rest} disabled={busy || rest.disabled === true} aria-busy={busy}>
      {busy ? (busyLabel ?? 'Working…') : children}
    </button>
  );
}

/** Says why a page is read-only for a member whose scope leaves its locale out (design.md §16). */
export function ScopeNote({ note }: { note: string | null }) {
  if (note === null) return null;
  return (
    <p role="note" className="hint">
      {note}
    </p>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export const when = (iso: string | null | undefined): string =>
  iso === null || iso === undefined ? '—' : new Date(iso).toLocaleString();

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A one-line form: a labelled field and the button that submits it (names of keys, passkeys). */
export function OneFieldForm({
  label,
  submitLabel,
  busy,
  onSubmit,
  ...field
}: InputHTMLAttributes<HTMLInputElement> & {
  id: string;
  label: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: () => void;
}) {
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <label htmlFor={field.id}>{label}</label>
      <input {...field} />
      <BusyButton type="submit" busy={busy}>
        {submitLabel}
      </BusyButton>
    </form>
  );
}

/** A table's header row: its columns, and a last column of row actions named for screen readers. */
export function HeaderRow({ columns, actions }: { columns: string[]; actions: boolean }) {
  return (
    <tr>
      {columns.map((column) => (
        <th scope="col" key={column}>
          {column}
        </th>
      ))}
      {actions && (
        <th scope="col">
          <span className="visually-hidden">Actions</span>
        </th>
      )}
    </tr>
  );
}
