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
import { createAscClient, type Counter } from './client.js';
import {
  ALWAYS_EDITABLE,
  APP_INFO_FIELDS,
  compareVersions,
  EDITABLE_INFO_STATES,
  EDITABLE_VERSION_STATES,
  fieldsOf,
  LIVE_INFO_STATES,
  LIVE_VERSION_STATES,
  splitFields,
  VERSION_FIELDS,
  type JsonApiResource,
} from './mapper.js';

/** Calls in flight per API key: fast pushes while far below Apple's hourly budget (stores.md §5). */
const CONCURRENCY_PER_KEY = 8;
const PAGE_LIMIT = 200;

export interface AppStoreConnectorOptions {
  baseUrl: string;
  policy?: RetryPolicy;
  now?: () => number;
  /** Calls in flight per API key (default 8); 1 makes the connector work one call at a time. */
  concurrency?: number;
  /** The accounts' bulkheads and breakers (shared by the connectors of one factory). */
  accounts?: AccountRegistry;
}

interface Container {
  id: string;
  editable: boolean;
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

  /** The editable appInfo if there is one, else the live one (stores.md §2.1). */
  async function appInfo(counter: Counter, appId: string): Promise<Container | null> {
    const infos = await client.all(
      counter,
      `/v1/apps/${encodeURIComponent(appId)}/appInfos?limit=${PAGE_LIMIT}`,
    );
    const stateOf = (info: JsonApiResource) => {
      const state = info.attributes?.state ?? info.attributes?.appStoreState;
      return typeof state === 'string' ? state : '';
    };
    const editable = infos.find((info) => EDITABLE_INFO_STATES.includes(stateOf(info)));
    if (editable) return { id: editable.id, editable: true };
    const live = infos.find((info) => LIVE_INFO_STATES.includes(stateOf(info))) ?? infos[0];
    return live ? { id: live.id, editable: false } : null;
  }

  /** The editable iOS version with the highest versionString, else the live one. */
  async function version(counter: Counter, appId: string): Promise<Container | null> {
    const query = (states: string[]) =>
      `/v1/apps/${encodeURIComponent(appId)}/appStoreVersions?filter[platform]=IOS&filter[appVersionState]=${states.join(',')}&limit=${PAGE_LIMIT}`;
    const highest = (versions: JsonApiResource[]) =>
      [...versions].sort((a, b) =>
        compareVersions(String(b.attributes?.versionString), String(a.attributes?.versionString)),
      )[0];
    const editable = highest(await client.all(counter, query(EDITABLE_VERSION_STATES)));
    if (editable) return { id: editable.id, editable: true };
    const live = highest(await client.all(counter, query(LIVE_VERSION_STATES)));
    return live ? { id: live.id, editable: false } : null;
  }

  async function containers(counter: Counter, appId: string) {
    const [info, ver] = await Promise.all([appInfo(counter, appId), version(counter, appId)]);
    const [infoLocs, verLocs] = await Promise.all([
      info ? client.all(counter, `/v1/appInfos/${info.id}/appInfoLocalizations?limit=${PAGE_LIMIT}`) : [],
      ver
        ? client.all(
            counter,
            `/v1/appStoreVersions/${ver.id}/appStoreVersionLocalizations?limit=${PAGE_LIMIT}`,
          )
        : [],
    ]);
    const byLocale = (items: JsonApiResource[]) =>
      new Map(items.map((item) => [String(item.attributes?.locale), item]));
    return { info, ver, infoLocs: byLocale(infoLocs), verLocs: byLocale(verLocs) };
  }

  return {
    store: 'appstore',

    async verify() {
      await client.call({ calls: 0 }, 'GET', '/v1/apps?limit=1');
    },

    async read(appId) {
      const counter = { calls: 0 };
      const { info, ver, infoLocs, verLocs } = await containers(counter, appId);
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
      const counter = { calls: 0 };
      const { info, ver, infoLocs, verLocs } = await containers(counter, appId);
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
