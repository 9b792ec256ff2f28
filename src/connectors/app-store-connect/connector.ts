/**
 * App Store Connect connector: reads the listing texts of an app from the editable (else live)
 * appInfo and iOS version, and writes changed fields with PATCH/POST/DELETE of their
 * localizations (stores.md §2.1).
 */
import {
  createAccountRegistry,
  DEFAULT_POLICY,
  type AccountRegistry,
  type RetryPolicy,
} from '../resilience.js';
import {
  StoreError,
  type AppStoreSecret,
  type LocaleChange,
  type LocaleFailure,
  type PushOptions,
  type PushReport,
  type ReadReport,
  type StoreConnector,
  type StoreSnapshot,
} from '../store-connector.js';
import { createAscClient } from './client.js';
import { readContainers, type Container } from './containers.js';
import {
  ALWAYS_EDITABLE,
  APP_INFO_FIELDS,
  fieldsOf,
  splitFields,
  VERSION_FIELDS,
  type JsonApiResource,
} from './mapper.js';

/** Calls in flight per API key: fast pushes while far below Apple's hourly budget (stores.md §5). */
const CONCURRENCY_PER_KEY = 8;

export interface AppStoreConnectorOptions {
  baseUrl: string;
  policy?: RetryPolicy;
  now?: () => number;
  /** Calls in flight per API key (default 8); 1 makes the connector work one call at a time. */
  concurrency?: number;
  /** The accounts' bulkheads and breakers (shared by the connectors of one factory). */
  accounts?: AccountRegistry;
}

export function createAppStoreConnector(
  secret: AppStoreSecret,
  options: AppStoreConnectorOptions,
): StoreConnector {
  const accounts = options.accounts ?? createAccountRegistry();
  const client = createAscClient(secret, {
    baseUrl: options.baseUrl,
    policy: options.policy ?? DEFAULT_POLICY,
    now: options.now ?? Date.now,
    account: accounts(
      `appstore:${secret.issuerId}:${secret.keyId}`,
      options.concurrency ?? CONCURRENCY_PER_KEY,
    ),
  });

  return {
    store: 'appstore',

    async verify() {
      await client.call({ calls: 0 }, 'GET', '/v1/apps?limit=1');
    },

    async read(appId) {
      const counter = { calls: 0 };
      const { info, ver, infoLocs, verLocs } = await readContainers(client, counter, appId);
      if (info === null && ver === null) {
        throw new StoreError(
          'appstore',
          'NOT_FOUND',
          `App ${appId} has no app info or version in App Store Connect`,
          404,
          false,
        );
      }
      const snapshot: StoreSnapshot = new Map();
      for (const locale of new Set([...infoLocs.keys(), ...verLocs.keys()])) {
        const infoLoc = infoLocs.get(locale);
        const verLoc = verLocs.get(locale);
        snapshot.set(locale, {
          ...(infoLoc ? fieldsOf(infoLoc, APP_INFO_FIELDS) : {}),
          ...(verLoc ? fieldsOf(verLoc, VERSION_FIELDS) : {}),
        });
      }
      return { snapshot, calls: counter.calls } satisfies ReadReport;
    },

    async write(appId: string, changes: LocaleChange[], options: PushOptions): Promise<PushReport> {
      const counter = { calls: 0, beforeWrite: options.beforeWrite };
      const { info, ver, infoLocs, verLocs } = await readContainers(client, counter, appId);
      const failures: LocaleFailure[] = [];
      const written: string[] = [];
      const removed: string[] = [];
      const fail = (locale: string, error: unknown) => {
        if (!(error instanceof StoreError)) throw error;
        failures.push({ locale, field: error.field, error: { code: error.code, message: error.message } });
      };

      async function writeResource(
        kind: 'appInfoLocalizations' | 'appStoreVersionLocalizations',
        container: Container | null,
        existing: JsonApiResource | undefined,
        locale: string,
        attributes: Record<string, string | null>,
      ) {
        if (Object.keys(attributes).length === 0) return;
        const writable =
          container?.editable === true || Object.keys(attributes).every((f) => ALWAYS_EDITABLE.has(f));
        if (container === null || !writable) {
          const what = kind === 'appInfoLocalizations' ? 'app info' : 'App Store version';
          throw new StoreError(
            'appstore',
            'NOT_EDITABLE',
            `No editable ${what}: create a new version in App Store Connect (state Prepare for Submission) before pushing`,
            409,
            false,
            Object.keys(attributes)[0] ?? null,
          );
        }
        if (existing) {
          await client.call(counter, 'PATCH', `/v1/${kind}/${existing.id}`, {
            data: { type: kind, id: existing.id, attributes },
          });
          return;
        }
        const [relation, type] =
          kind === 'appInfoLocalizations' ? ['appInfo', 'appInfos'] : ['appStoreVersion', 'appStoreVersions'];
        const created = attributesWithout(attributes);
        await client.call(counter, 'POST', `/v1/${kind}`, {
          data: {
            type: kind,
            attributes: { locale, ...created },
            relationships: { [relation]: { data: { type, id: container.id } } },
          },
        });
      }

      await Promise.all(
        changes.map(async (change) => {
          const { info: infoAttrs, version: versionAttrs } = splitFields(change.fields);
          try {
            // The two resources of a locale are independent: written side by side.
            const results = await Promise.allSettled([
              writeResource(
                'appInfoLocalizations',
                info,
                infoLocs.get(change.locale),
                change.locale,
                infoAttrs,
              ),
              writeResource(
                'appStoreVersionLocalizations',
                ver,
                verLocs.get(change.locale),
                change.locale,
                versionAttrs,
              ),
            ]);
            const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
            if (rejected) throw rejected.reason;
            written.push(change.locale);
            options.onLocaleWritten?.(change.locale);
          } catch (error) {
            fail(change.locale, error);
          }
        }),
      );

      for (const locale of options.removeLocales ?? []) {
        try {
          const verLoc = verLocs.get(locale);
          const infoLoc = infoLocs.get(locale);
          if (verLoc) await client.call(counter, 'DELETE', `/v1/appStoreVersionLocalizations/${verLoc.id}`);
          if (infoLoc) await client.call(counter, 'DELETE', `/v1/appInfoLocalizations/${infoLoc.id}`);
          removed.push(locale);
        } catch (error) {
          fail(locale, error);
        }
      }
      return { written: written.sort(), removed, failures, calls: counter.calls };
    },
  };
}

/** A create sends only the attributes that have a value; null means "not set" there. */
function attributesWithout(attributes: Record<string, string | null>) {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== null));
}
