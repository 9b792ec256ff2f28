/** Store and DeepL credentials (admins): uploaded, verified, removed. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent, type ReactNode } from 'react';
import { api, unwrap } from '../../api/client';
import { BusyButton, ErrorMessage, Section, when } from '../../ui';
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
    onSettled: refresh,
  });
  const readFile = (set: (text: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    void event.target.files?.[0]?.text().then(set);
  };
  const infoOf = (store: string) => credentials.data?.credentials.find((c) => c.store === store);
  const configured = (store: string) => infoOf(store)?.configured;
  const apple = infoOf('appstore');
  const google = infoOf('playstore');
  return (
    <Section title="Store credentials">
      <p>Stored encrypted; never shown again after upload.</p>
      <ErrorMessage error={credentials.error} />
      <StoreKeyForm
        label="App Store Connect API key"
        title="App Store Connect"
        configured={configured('appstore')}
        details={[
          ['Issuer ID', apple?.issuerId],
          ['Key ID', apple?.keyId],
          ['Uploaded', apple?.updatedAt && when(apple.updatedAt)],
          ['Last checked with the store', lastChecked(apple?.lastVerification)],
        ]}
        upload={setAppStore}
        ready={privateKey !== ''}
        action="App Store key"
        onVerify={() => verify.mutate('appstore')}
      >
        <label htmlFor="issuer-id">Issuer ID</label>
        <input id="issuer-id" value={issuerId} onChange={(e) => setIssuerId(e.target.value)} required />
        <label htmlFor="key-id">Key ID</label>
        <input id="key-id" value={keyId} onChange={(e) => setKeyId(e.target.value)} required />
        <label htmlFor="p8">Private key (.p8 file)</label>
        <input id="p8" type="file" accept=".p8" onChange={readFile(setPrivateKey)} />
      </StoreKeyForm>
      <StoreKeyForm
        label="Google Play service account"
        title="Google Play"
        configured={configured('playstore')}
        details={[
          ['Service account', google?.clientEmail],
          ['Google Cloud project', google?.projectId ?? undefined],
          ['Uploaded', google?.updatedAt && when(google.updatedAt)],
          ['Last checked with the store', lastChecked(google?.lastVerification)],
        ]}
        upload={setPlayStore}
        ready={serviceAccount !== ''}
        action="Google Play key"
        onVerify={() => verify.mutate('playstore')}
      >
        <label htmlFor="service-account">Service account key (.json file)</label>
        <input id="service-account" type="file" accept=".json" onChange={readFile(setServiceAccount)} />
      </StoreKeyForm>
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

type Verification = { at: string; verified: boolean; error?: { message: string } } | null | undefined;

/** When a key was last checked with its store, and what the store said. */
export function lastChecked(verification: Verification): string {
  if (verification === null || verification === undefined) return 'not yet: use Verify';
  return verification.verified
    ? `${when(verification.at)}: accepted`
    : `${when(verification.at)}: refused (${verification.error?.message ?? 'no reason given'})`;
}

/** One store's key: its fields, an upload, and a verify button once a key is stored. */
function StoreKeyForm(props: {
  label: string;
  title: string;
  configured: boolean | undefined;
  /** What the stored key is, without its secret: label → value (left out when unknown). */
  details: [string, string | undefined][];
  upload: { mutate: () => void; isPending: boolean; error: unknown };
  ready: boolean;
  action: string;
  onVerify: () => void;
  children: ReactNode;
}) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.upload.mutate();
      }}
      aria-label={props.label}
    >
      <h3>
        {props.title} {props.configured ? '(configured)' : '(not set)'}
      </h3>
      {props.configured && (
        <dl className="facts" aria-label={`${props.title} key in use`}>
          {props.details
            .filter(([, value]) => value !== undefined && value !== '')
            .map(([label, value]) => (
              <div key={label} className="fact">
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
        </dl>
      )}
      {props.children}
      <BusyButton type="submit" busy={props.upload.isPending} disabled={!props.ready}>
        Upload {props.action}
      </BusyButton>
      {props.configured && (
        <button type="button" onClick={props.onVerify}>
          Verify {props.action}
        </button>
      )}
      <ErrorMessage error={props.upload.error} />
    </form>
  );
}
