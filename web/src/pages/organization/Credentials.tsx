/** Store and DeepL credentials (admins): uploaded, verified, removed. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { BusyButton, ErrorMessage, Section } from '../../ui';
import { keys } from '../../api/keys';
import { useCredentials } from '../../api/queries';

export function Credentials() {
  const client = useQueryClient();
  const credentials = useCredentials();
  const refresh = () => client.invalidateQueries({ queryKey: keys.credentials() });
  const [issuerId, setIssuerId] = useState('');
  const [keyId, setKeyId] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [serviceAccount, setServiceAccount] = useState('');
  const setAppStore = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/v1/organization/credentials/appstore', { body: { issuerId, keyId, privateKey } })),
    onSuccess: () => {
      setPrivateKey('');
      return refresh();
    },
  });
  const setPlayStore = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/v1/organization/credentials/playstore', { body: { serviceAccount } })),
    onSuccess: () => {
      setServiceAccount('');
      return refresh();
    },
  });
  const verify = useMutation({
    mutationFn: (store: 'appstore' | 'playstore') =>
      unwrap(api.POST('/api/v1/organization/credentials/{store}/verify', { params: { path: { store } } })),
  });
  const readFile = (set: (text: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    void event.target.files?.[0]?.text().then(set);
  };
  const configured = (store: string) =>
    credentials.data?.credentials.find((c) => c.store === store)?.configured;
  return (
    <Section title="Store credentials">
      <p>Stored encrypted; never shown again after upload.</p>
      <ErrorMessage error={credentials.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setAppStore.mutate();
        }}
        aria-label="App Store Connect API key"
      >
        <h3>App Store Connect {configured('appstore') ? '(configured)' : '(not set)'}</h3>
        <label htmlFor="issuer-id">Issuer ID</label>
        <input id="issuer-id" value={issuerId} onChange={(e) => setIssuerId(e.target.value)} required />
        <label htmlFor="key-id">Key ID</label>
        <input id="key-id" value={keyId} onChange={(e) => setKeyId(e.target.value)} required />
        <label htmlFor="p8">Private key (.p8 file)</label>
        <input id="p8" type="file" accept=".p8" onChange={readFile(setPrivateKey)} />
        <BusyButton type="submit" busy={setAppStore.isPending} disabled={privateKey === ''}>
          Upload App Store key
        </BusyButton>
        {configured('appstore') && (
          <button type="button" onClick={() => verify.mutate('appstore')}>
            Verify App Store key
          </button>
        )}
        <ErrorMessage error={setAppStore.error} />
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setPlayStore.mutate();
        }}
        aria-label="Google Play service account"
      >
        <h3>Google Play {configured('playstore') ? '(configured)' : '(not set)'}</h3>
        <label htmlFor="service-account">Service account key (.json file)</label>
        <input id="service-account" type="file" accept=".json" onChange={readFile(setServiceAccount)} />
        <BusyButton type="submit" busy={setPlayStore.isPending} disabled={serviceAccount === ''}>
          Upload Google Play key
        </BusyButton>
        {configured('playstore') && (
          <button type="button" onClick={() => verify.mutate('playstore')}>
            Verify Google Play key
          </button>
        )}
        <ErrorMessage error={setPlayStore.error} />
      </form>
      {verify.data && (
        <p role="status">
          {verify.data.verified
            ? 'The store accepted the key.'
            : `The store refused the key: ${verify.data.error?.message ?? ''}`}
        </p>
      )}
      <ErrorMessage error={verify.error} />
    </Section>
  );
}
