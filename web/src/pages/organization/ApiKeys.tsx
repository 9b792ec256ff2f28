/** The member's own API keys: created (shown once) and revoked. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { CopyButton, ErrorMessage, OneFieldForm, Section, when } from '../../ui';
import { keys } from '../../api/keys';
import { useApiKeys } from '../../api/queries';

export function ApiKeys() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const apiKeys = useApiKeys();
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/api-keys', { body: { name } })),
    onSuccess: () => {
      setName('');
      return client.invalidateQueries({ queryKey: keys.apiKeys() });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) =>
      unwrap(api.DELETE('/api/v1/api-keys/{keyId}', { params: { path: { keyId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.apiKeys() }),
  });
  return (
    <Section title="Your API keys">
      <OneFieldForm
        id="key-name"
        label="Key name"
        submitLabel="Create API key"
        busy={create.isPending}
        onSubmit={() => create.mutate()}
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        maxLength={100}
      />
      {create.data && (
        <div role="status" className="panel">
          <p>
            Your new key, shown once — store it now: <code>{create.data.apiKey}</code>
          </p>
          <CopyButton text={create.data.apiKey} label="Copy key" />
        </div>
      )}
      <ErrorMessage error={create.error ?? revoke.error ?? apiKeys.error} />
      <ul>
        {apiKeys.data?.keys.map((k) => (
          <li key={k.id}>
            {k.name} · {k.prefix}… · last used {when(k.lastUsedAt)}{' '}
            <button type="button" onClick={() => revoke.mutate(k.id)}>
              Revoke key {k.name}
            </button>
          </li>
        ))}
      </ul>
    </Section>
  );
}
