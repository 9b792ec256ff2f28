/**
 * Store credentials of the organization (admins only): set, list (metadata only), delete, verify
 * with the store; connectors for the other services; key rotation for the operator.
 */
import {
  StoreError,
  type ConnectorFactory,
  type StoreConnector,
  type StoreSecret,
} from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import type { KeyRing } from '../../shared/key-ring.js';
import { STORES, type Store } from '../../shared/stores.js';
import { authorize, type OperationId, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import { ProviderError } from '../../connectors/translation-provider.js';
import {
  deeplMetadataOf,
  metadataOf,
  parseDeeplKey,
  parseAppStoreSecret,
  parsePlayStoreSecret,
  unreadable,
  type CredentialInfo,
  type Verification,
} from './credential.js';
import { credentialsRepository as repo } from './credentials.repository.js';

/** Binds a ciphertext to its row: a sealed secret copied to another organization will not open. */
const sealContext = (organizationId: string, store: string) => `store_credentials:${organizationId}:${store}`;

export interface CredentialsServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  keyRing: KeyRing;
  connectors: ConnectorFactory;
  /** Asks the translation provider whether it accepts a key (throws ProviderError when not). */
  verifyTranslationKey?: (apiKey: string) => Promise<unknown>;
}

/** The organization's machine translation key (design.md §14), sealed like the store secrets. */
interface DeepLSecret {
  store: 'deepl';
  apiKey: string;
}

export function createCredentialsService({
  db,
  clock,
  audit,
  keyRing,
  connectors,
  verifyTranslationKey,
}: CredentialsServiceDeps) {
  async function save(
    ctx: RequestContext,
    operation: OperationId,
    secret: StoreSecret | DeepLSecret,
  ): Promise<CredentialInfo> {
    const at = clock.now().toISOString();
    const sealed = keyRing.seal(JSON.stringify(secret), sealContext(ctx.organizationId, secret.store));
    const metadata = secret.store === 'deepl' ? deeplMetadataOf(secret.apiKey) : metadataOf(secret);
    await db.transaction().execute(async (trx) => {
      await repo.upsert(trx, {
        organization_id: ctx.organizationId,
        store: secret.store,
        key_id: sealed.keyId,
        iv: sealed.iv,
        ciphertext: sealed.ciphertext,
        auth_tag: sealed.tag,
        metadata: JSON.stringify(metadata),
        created_at: at,
        updated_at: at,
      });
      await audit.record(trx, ctx, operation, { type: 'credentials', id: secret.store }, metadata);
    });
    return { store: secret.store, configured: true, ...metadata, updatedAt: at, lastVerification: null };
  }

  /** The decrypted secret of an organization's store, or null when none is set. */
  async function load(organizationId: string, store: Store): Promise<StoreSecret | null>;
  async function load(organizationId: string, store: 'deepl'): Promise<DeepLSecret | null>;
  async function load(
    organizationId: string,
    store: Store | 'deepl',
  ): Promise<StoreSecret | DeepLSecret | null> {
    const row = await repo.find(db, organizationId, store);
    if (row === undefined) return null;
    try {
      const text = keyRing.open(
        { keyId: row.key_id, iv: row.iv, ciphertext: row.ciphertext, tag: row.auth_tag },
        sealContext(organizationId, store),
      );
      return JSON.parse(text) as StoreSecret | DeepLSecret;
    } catch {
      throw unreadable();
    }
  }

  /** Whether the store (or DeepL) accepts the organization's credentials. */
  async function askStore(
    ctx: RequestContext,
    store: Store | 'deepl',
  ): Promise<{ store: Store | 'deepl'; verified: boolean; error?: { code: string; message: string } }> {
    if (store === 'deepl') {
      const key = (await load(ctx.organizationId, 'deepl'))?.apiKey;
      if (key === undefined) throw notFound('deepl credentials');
      try {
        await verifyTranslationKey?.(key);
        return { store, verified: true };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return { store, verified: false, error: { code: error.code, message: error.message } };
      }
    }
    const secret = await load(ctx.organizationId, store);
    if (secret === null) throw notFound(`${store} credentials`);
    try {
      await connectors(secret).verify();
      return { store, verified: true };
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      return { store, verified: false, error: { code: error.code, message: error.message } };
    }
  }

  return {
    /** Sets App Store Connect API credentials (validated: issuer UUID, key id, P-256 .p8). */
    async setAppStore(ctx: RequestContext, input: { issuerId: string; keyId: string; privateKey: string }) {
      authorize(ctx, 'credentials.setAppStore');
      return save(ctx, 'credentials.setAppStore', parseAppStoreSecret(input));
    },

    /** Sets a Google service-account key (object or JSON text; client_email and an RSA private_key). */
    async setPlayStore(ctx: RequestContext, input: { serviceAccount: unknown }) {
      authorize(ctx, 'credentials.setPlayStore');
      return save(ctx, 'credentials.setPlayStore', parsePlayStoreSecret(input));
    },

    /** Sets the organization's DeepL API key (design.md §14): admins only, encrypted at rest. */
    async setDeepl(ctx: RequestContext, input: { apiKey: string }) {
      authorize(ctx, 'credentials.setDeepl');
      return save(ctx, 'credentials.setDeepl', { store: 'deepl', apiKey: parseDeeplKey(input.apiKey) });
    },

    /** The organization's DeepL key, or null when none is set. */
    async deeplKey(organizationId: string): Promise<string | null> {
      return (await load(organizationId, 'deepl'))?.apiKey ?? null;
    },

    /** What is configured, per store and provider; never a secret. */
    async list(ctx: RequestContext): Promise<CredentialInfo[]> {
      authorize(ctx, 'credentials.list');
      const rows = await repo.list(db, ctx.organizationId);
      return [...STORES, 'deepl' as const].map((store) => {
        const row = rows.find((r) => r.store === store);
        if (row === undefined) return { store, configured: false };
        return {
          store,
          configured: true,
          ...(JSON.parse(row.metadata) as object),
          updatedAt: row.updated_at,
          lastVerification:
            row.last_verification == null ? null : (JSON.parse(row.last_verification) as Verification),
        };
      });
    },

    async remove(ctx: RequestContext, store: Store | 'deepl'): Promise<void> {
      authorize(ctx, 'credentials.delete');
      await db.transaction().execute(async (trx) => {
        if (!(await repo.delete(trx, ctx.organizationId, store))) throw notFound(`${store} credentials`);
        await audit.record(
          trx,
          ctx,
          'credentials.delete',
          { type: 'credentials', id: store },
          { removed: true },
        );
      });
    },

    /**
     * Asks the store whether it accepts the credentials. A refusal is an answer, not an error;
     * either is recorded in the audit log.
     */
    async verify(ctx: RequestContext, store: Store | 'deepl') {
      authorize(ctx, 'credentials.verify');
      const answer = await askStore(ctx, store);
      const verification: Verification = {
        at: clock.now().toISOString(),
        verified: answer.verified,
        ...(answer.error !== undefined && { error: answer.error }),
      };
      await db.transaction().execute(async (trx) => {
        await repo.setVerification(trx, ctx.organizationId, store, JSON.stringify(verification));
        await audit.record(
          trx,
          ctx,
          'credentials.verify',
          { type: 'credentials', id: store },
          { verified: answer.verified, ...(answer.error !== undefined && { code: answer.error.code }) },
        );
      });
      return answer;
    },

    /** A connector for the organization's store, or null when no credentials are set. */
    async connectorFor(organizationId: string, store: Store): Promise<StoreConnector | null> {
      const secret = await load(organizationId, store);
      return secret === null ? null : connectors(secret);
    },

    /**
     * Operator: `appmeta secrets rotate`. Re-encrypts every stored secret under the current key;
     * rows already under it are left alone. Answers how many were re-encrypted.
     */
    async rotateKeys(): Promise<{ rotated: number; total: number }> {
      const rows = await repo.all(db);
      let rotated = 0;
      for (const row of rows) {
        if (row.key_id === keyRing.currentKeyId) continue;
        const context = sealContext(row.organization_id, row.store);
        const plaintext = keyRing.open(
          { keyId: row.key_id, iv: row.iv, ciphertext: row.ciphertext, tag: row.auth_tag },
          context,
        );
        const sealed = keyRing.seal(plaintext, context);
        await repo.upsert(db, {
          ...row,
          key_id: sealed.keyId,
          iv: sealed.iv,
          ciphertext: sealed.ciphertext,
          auth_tag: sealed.tag,
          updated_at: clock.now().toISOString(),
        });
        rotated += 1;
      }
      return { rotated, total: rows.length };
    },
  };
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
