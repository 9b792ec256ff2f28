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
  type MediaSlotResult,
  type PushOptions,
  type PushReport,
  type ReadReport,
  type StoreReleases,
  type StoreVersion,
  type StoreConnector,
  type StoreSnapshot,
} from '../store-connector.js';
import { createAscClient } from './client.js';
import { createAscMedia, DEFAULT_PROCESSING, type ProcessingPolicy } from './media.js';
import { readContainers, type Container } from './containers.js';
import {
  ALWAYS_EDITABLE,
  APP_INFO_FIELDS,
  EDITABLE_VERSION_STATES,
  compareVersions,
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
  /** How long to wait for Apple to process an uploaded file. */
  processing?: Partial<ProcessingPolicy>;
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

  const media = createAscMedia(client, { ...DEFAULT_PROCESSING, ...options.processing });

  const versionOf = (resource: JsonApiResource): StoreVersion => {
    const a = resource.attributes ?? {};
    const text = (value: unknown, otherwise: string) => (typeof value === 'string' ? value : otherwise);
    const state = text(a.appVersionState, text(a.appStoreState, ''));
    return {
      id: resource.id,
      platform: text(a.platform, 'IOS'),
      versionString: text(a.versionString, ''),
      state,
      editable: EDITABLE_VERSION_STATES.includes(state),
      createdDate: typeof a.createdDate === 'string' ? a.createdDate : null,
    };
  };

  /** The app's iOS versions, newest version string first. */
  async function readReleases(counter: { calls: number }, appId: string): Promise<StoreReleases> {
    const versions = await client.all(
      counter,
      `/v1/apps/${encodeURIComponent(appId)}/appStoreVersions?filter[platform]=IOS&limit=200`,
    );
    return {
      versions: versions.map(versionOf).sort((a, b) => compareVersions(b.versionString, a.versionString)),
      tracks: [],
    };
  }

  return {
    store: 'appstore',

    async verify() {
      await client.call({ calls: 0 }, 'GET', '/v1/apps?limit=1');
    },

    async read(appId, readOptions = {}) {
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
      const [storeMedia, releases] = await Promise.all([
        readOptions.media === false ? new Map() : media.read(counter, verLocs),
        readOptions.releases === false ? { versions: [], tracks: [] } : readReleases(counter, appId),
      ]);
      for (const locale of new Set([...infoLocs.keys(), ...verLocs.keys()])) {
        const infoLoc = infoLocs.get(locale);
        const verLoc = verLocs.get(locale);
        snapshot.set(locale, {
          ...(infoLoc ? fieldsOf(infoLoc, APP_INFO_FIELDS) : {}),
          ...(verLoc ? fieldsOf(verLoc, VERSION_FIELDS) : {}),
        });
      }
      return { snapshot, media: storeMedia, releases, calls: counter.calls } satisfies ReadReport;
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
          // Only what differs from the store now: a resumed push does not write a text twice.
          const current = existing.attributes ?? {};
          const differing = Object.fromEntries(
            Object.entries(attributes).filter(
              ([field, value]) => ((current[field] as string | null | undefined) || null) !== (value || null),
            ),
          );
          if (Object.keys(differing).length === 0) return;
          await client.call(counter, 'PATCH', `/v1/${kind}/${existing.id}`, {
            data: { type: kind, id: existing.id, attributes: differing },
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
      const mediaResults: MediaSlotResult[] = [];
      let uploadedBytes = 0;
      const slots = options.media ?? [];
      if (slots.length > 0) {
        // Locales created by the texts above have their localization only now.
        const localizations = slots.some((slot) => !verLocs.has(slot.locale))
          ? (await readContainers(client, counter, appId)).verLocs
          : verLocs;
        await Promise.all(
          slots.map(async (slot) => {
            const refuse = (code: string, message: string) =>
              mediaResults.push({
                locale: slot.locale,
                slotType: slot.slotType,
                stored: null,
                uploaded: 0,
                deleted: 0,
                reordered: false,
                failures: [
                  { locale: slot.locale, slotType: slot.slotType, sha256: null, error: { code, message } },
                ],
              });
            const localization = localizations.get(slot.locale);
            if (ver === null || !ver.editable) {
              return refuse(
                'NOT_EDITABLE',
                'No editable App Store version: screenshots and previews are written only to a version in Prepare for Submission (or another editable state); create one in App Store Connect first',
              );
            }
            if (localization === undefined) {
              return refuse(
                'NOT_FOUND',
                `The version has no ${slot.locale} localization: push the locale's texts first`,
              );
            }
            try {
              const { bytes, ...result } = await media.writeSlot(
                counter,
                localization.id,
                slot,
                options.onMediaItem,
              );
              uploadedBytes += bytes;
              mediaResults.push(result);
            } catch (error) {
              if (!(error instanceof StoreError)) throw error;
              refuse(error.code, error.message);
            }
          }),
        );
      }
      return {
        written: written.sort(),
        removed,
        failures,
        media: mediaResults,
        uploadedBytes,
        releaseNotes: [],
        calls: counter.calls,
      };
    },

    readReleases: (appId) => readReleases({ calls: 0 }, appId),

    async createVersion(appId, versionString) {
      const answer = await client.call({ calls: 0 }, 'POST', '/v1/appStoreVersions', {
        data: {
          type: 'appStoreVersions',
          attributes: { versionString, platform: 'IOS' },
          relationships: { app: { data: { type: 'apps', id: appId } } },
        },
      });
      return versionOf(answer.data as JsonApiResource);
    },

    async download(url, into) {
      const counter = { calls: 0 };
      if (!/\.m3u8(\?|$)/.test(url)) {
        await client.transfer(counter, { method: 'GET', url, idempotent: true, onBody: into });
        return;
      }
      // A preview's videoUrl is an HLS playlist: its first media file is the video.
      let playlist = '';
      await client.transfer(counter, {
        method: 'GET',
        url,
        idempotent: true,
        onBody: async (body) => {
          playlist = '';
          for await (const chunk of body) playlist += String(chunk);
        },
      });
      const first = playlist.split('\n').find((line) => line.trim() !== '' && !line.startsWith('#'));
      if (first === undefined) {
        throw new StoreError(
          'appstore',
          'UNREADABLE_MEDIA',
          `The playlist ${url} names no media file`,
          null,
          false,
        );
      }
      await client.transfer(counter, {
        method: 'GET',
        url: new URL(first.trim(), url).toString(),
        idempotent: true,
        onBody: into,
      });
    },
  };
}

/** A create sends only the attributes that have a value; null means "not set" there. */
function attributesWithout(attributes: Record<string, string | null>) {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== null));
}
