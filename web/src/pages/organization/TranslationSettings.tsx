/**
 * Machine translation settings (design.md §14): the organization's DeepL key and this month's use,
 * the terms kept as written in every language, and the glossaries per language pair. Everyone
 * reads them (translators see what is protected); admins change them.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import { useCredentials, useGlossaries, useOrganization } from '../../api/queries';
import { Link } from '../../router';
import { isAdmin, type Session } from '../../session';
import { BusyButton, ErrorMessage, HeaderRow, Section, when } from '../../ui';
import { lastChecked } from './Credentials';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

function DeepLKey() {
  const client = useQueryClient();
  const credentials = useCredentials();
  const deepl = credentials.data?.credentials.find((c) => c.store === 'deepl');
  const [apiKey, setApiKey] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: keys.credentials() });
  const save = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/organization/credentials/deepl', { body: { apiKey } })),
    onSuccess: () => {
      setApiKey('');
      return refresh();
    },
  });
  const verify = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/organization/credentials/{store}/verify', { params: { path: { store: 'deepl' } } }),
      ),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/api/v1/organization/credentials/{store}', { params: { path: { store: 'deepl' } } }),
      ),
    onSuccess: refresh,
  });
  return (
    <Section title="DeepL key">
      <ErrorMessage error={credentials.error} />
      {deepl?.configured ? (
        <dl className="facts" aria-label="DeepL key in use">
          <dt>Plan</dt>
          <dd>{deepl.free ? 'DeepL API Free' : 'DeepL API Pro'}</dd>
          <dt>Set</dt>
          <dd>{when(deepl.updatedAt)}</dd>
          <dt>Last checked with DeepL</dt>
          <dd>{lastChecked(deepl.lastVerification)}</dd>
        </dl>
      ) : (
        <p>No key of the organization is set: machine translation uses the server’s key, if it has one.</p>
      )}
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label htmlFor="deepl-key">{deepl?.configured ? 'Replace the key' : 'DeepL API key'}</label>
        <input
          id="deepl-key"
          type="password"
          autoComplete="off"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          required
        />
        <BusyButton type="submit" busy={save.isPending}>
          Save key
        </BusyButton>
      </form>
      {deepl?.configured && (
        <p className="actions">
          <BusyButton
            type="button"
            busy={verify.isPending}
            busyLabel="Checking…"
            onClick={() => verify.mutate()}
          >
            Check the key with DeepL
          </BusyButton>
          <BusyButton
            type="button"
            busy={remove.isPending}
            onClick={() => {
              if (confirm('Remove the DeepL key?')) remove.mutate();
            }}
          >
            Remove the key
          </BusyButton>
        </p>
      )}
      {verify.data && (
        <p role="status">
          {verify.data.verified
            ? 'DeepL accepted the key.'
            : `DeepL refused the key: ${verify.data.error?.message}`}
        </p>
      )}
      <ErrorMessage error={save.error ?? verify.error ?? remove.error} />
    </Section>
  );
}

function KeptTerms({ admin }: { admin: boolean }) {
  const client = useQueryClient();
  const organization = useOrganization();
  const saved = organization.data?.settings.doNotTranslate ?? [];
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? saved.join('\n');
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PATCH('/api/v1/organization', { body: { settings: { doNotTranslate: lines(shown) } } })),
    onSuccess: async () => {
      setText(null);
      await client.invalidateQueries({ queryKey: keys.organization() });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Section title="Do-not-translate terms">
      <p id="kept-terms-help">
        Kept exactly as written in every language’s machine drafts — the app’s name, trademarks. Translators
        see them beside each text.
      </p>
      <form onSubmit={submit}>
        <label htmlFor="kept-terms">Terms (one per line)</label>
        <textarea
          id="kept-terms"
          rows={5}
          value={shown}
          readOnly={!admin}
          aria-describedby="kept-terms-help"
          onChange={(e) => setText(e.target.value)}
        />
        {admin && (
          <BusyButton type="submit" busy={save.isPending} disabled={text === null}>
            Save terms
          </BusyButton>
        )}
      </form>
      {save.isSuccess && <p role="status">Saved.</p>}
      <ErrorMessage error={save.error} />
    </Section>
  );
}

/** "source = target" lines ⇄ a glossary's translated entries (terms kept as written are apart). */
const entriesText = (entries: Record<string, string>) =>
  Object.entries(entries)
    .filter(([from, to]) => from !== to)
    .map(([from, to]) => `${from} = ${to}`)
    .join('\n');

function Glossaries({ admin }: { admin: boolean }) {
  const client = useQueryClient();
  const glossaries = useGlossaries();
  const [source, setSource] = useState('en');
  const [target, setTarget] = useState('');
  const [terms, setTerms] = useState('');
  const [entries, setEntries] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: keys.glossaries() });
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/organization/glossaries/{source}/{target}', {
          params: { path: { source, target } },
          body: {
            terms: lines(terms),
            entries: Object.fromEntries(
              lines(entries).map((line) => {
                const at = line.indexOf('=');
                return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
              }),
            ),
          },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (pair: { source: string; target: string }) =>
      unwrap(api.DELETE('/api/v1/organization/glossaries/{source}/{target}', { params: { path: pair } })),
    onSuccess: refresh,
  });
  const edit = (glossary: {
    sourceLanguage: string;
    targetLanguage: string;
    entries: Record<string, string>;
  }) => {
    setSource(glossary.sourceLanguage);
    setTarget(glossary.targetLanguage);
    setTerms(
      Object.entries(glossary.entries)
        .filter(([from, to]) => from === to)
        .map(([from]) => from)
        .join('\n'),
    );
    setEntries(entriesText(glossary.entries));
    document.getElementById('glossary-target')?.focus();
  };
  const list = glossaries.data?.glossaries ?? [];
  return (
    <Section title="Glossaries">
      <p>Per language pair: how a term is translated (or that it is kept), used by every machine draft.</p>
      <ErrorMessage error={glossaries.error} />
      {glossaries.data && (
        <p>
          Machine translation this month ({glossaries.data.usage.period}):{' '}
          {glossaries.data.usage.characters.toLocaleString()} characters in {glossaries.data.usage.requests}{' '}
          requests.
        </p>
      )}
      {list.length === 0 ? (
        glossaries.data && <p>No glossaries yet.</p>
      ) : (
        <div className="table-scroll">
          <table aria-label="Glossaries">
            <thead>
              <HeaderRow columns={['Languages', 'Entries', 'Changed']} actions={admin} />
            </thead>
            <tbody>
              {list.map((g) => {
                const pair = `${g.sourceLanguage} → ${g.targetLanguage}`;
                return (
                  <tr key={pair}>
                    <td>{pair}</td>
                    <td>
                      {Object.entries(g.entries)
                        .map(([from, to]) => (from === to ? `${from} (kept)` : `${from} = ${to}`))
                        .join('; ')}
                    </td>
                    <td>{when(g.updatedAt)}</td>
                    {admin && (
                      <td>
                        <button
                          type="button"
                          onClick={() => edit(g)}
                          aria-label={`Edit the ${pair} glossary`}
                        >
                          Edit
                        </button>
                        <button
                          type="button"
                          onClick={() =>
                            remove.mutate({ source: g.sourceLanguage, target: g.targetLanguage })
                          }
                          aria-label={`Remove the ${pair} glossary`}
                        >
                          Remove
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {admin && (
        <form
          aria-label="Glossary"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <h3>Add or replace a glossary</h3>
          <label htmlFor="glossary-source">From language (e.g. en)</label>
          <input
            id="glossary-source"
            value={source}
            onChange={(e) => setSource(e.target.value.trim().toLowerCase())}
            required
            maxLength={3}
          />
          <label htmlFor="glossary-target">Into language (e.g. de)</label>
          <input
            id="glossary-target"
            value={target}
            onChange={(e) => setTarget(e.target.value.trim().toLowerCase())}
            required
            maxLength={3}
          />
          <label htmlFor="glossary-terms">Kept as written (one per line)</label>
          <textarea id="glossary-terms" rows={3} value={terms} onChange={(e) => setTerms(e.target.value)} />
          <label htmlFor="glossary-entries">Translated as (one per line: term = translation)</label>
          <textarea
            id="glossary-entries"
            rows={4}
            value={entries}
            placeholder="forecast = Vorhersage"
            onChange={(e) => setEntries(e.target.value)}
          />
          <BusyButton type="submit" busy={save.isPending}>
            Save glossary
          </BusyButton>
          {save.isSuccess && <p role="status">Glossary saved.</p>}
        </form>
      )}
      <ErrorMessage error={save.error ?? remove.error} />
    </Section>
  );
}

export function TranslationSettingsPage({ session }: { session: Session }) {
  const admin = isAdmin(session);
  return (
    <>
      <p>
        <Link href="/organization">← Organization</Link>
      </p>
      <h1>Translation settings</h1>
      {admin && <DeepLKey />}
      <KeptTerms admin={admin} />
      <Glossaries admin={admin} />
    </>
  );
}
