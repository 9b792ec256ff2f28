/**
 * App Store Connect connector: reads the listing texts of an app from the editable (else live)
 * appInfo and iOS version, and writes changed fields with PATCH/POST/DELETE of their
 * localizations (stores.md §2.1).
 */
import { storeClientOptions, type ConnectorCallOptions } from '../resilience.js';
import {
  StoreError,
  type AppStoreSecret,
  type ReadReport,
  type StoreReleases,
  type StoreVersion,
  type StoreConnector,
  type StoreSnapshot,
} from '../store-connector.js';
import { createAscClient } from './client.js';
import { createAscMedia, DEFAULT_PROCESSING, type ProcessingPolicy } from './media.js';
import { readContainers } from './containers.js';
import { createAscWrite } from './asc-write.js';
import { createAscProducts } from './products.js';
import { createAscMarketing, isMarketingChange } from './marketing.js';
import { createAscDetails } from './details.js';
import { createAscReleaseControls } from './release-controls.js';
import {
  APP_INFO_FIELDS,
  EDITABLE_VERSION_STATES,
  compareVersions,
  fieldsOf,
  VERSION_FIELDS,
  type JsonApiResource,
} from './mapper.js';

/** Calls in flight per API key: fast pushes while far below Apple's hourly budget (stores.md §5). */
const CONCURRENCY_PER_KEY = 8;

/** `concurrency` is per API key (default 8); 1 makes the connector work one call at a time. */
export interface AppStoreConnectorOptions extends ConnectorCallOptions {
  /** How long to wait for Apple to process an uploaded file. */
  processing?: Partial<ProcessingPolicy>;
}

export function createAppStoreConnector(
  secret: AppStoreSecret,
  options: AppStoreConnectorOptions,
): StoreConnector {
  const client = createAscClient(
    secret,
    storeClientOptions(
      options,
      'appstore',
      `appstore:${secret.issuerId}:${secret.keyId}`,
      CONCURRENCY_PER_KEY,
    ),
  );

  const media = createAscMedia(client, { ...DEFAULT_PROCESSING, ...options.processing });
  const products = createAscProducts(client);
  const marketing = createAscMarketing(client, media);
  const details = createAscDetails(client);
  const releaseControls = createAscReleaseControls(client);

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

    write: createAscWrite(client, media),

    readReleases: (appId) => readReleases({ calls: 0 }, appId),

    readReleaseControls: (appId) => releaseControls.read({ calls: 0 }, appId),

    applyReleaseControl: (appId, control) => releaseControls.apply({ calls: 0 }, appId, control),

    async readDetails(appId) {
      const counter = { calls: 0 };
      return { details: await details.read(counter, appId), calls: counter.calls };
    },

    async writeDetails(appId, changes, writeOptions) {
      const counter = { calls: 0 };
      return { ...(await details.write(counter, appId, changes, writeOptions)), calls: counter.calls };
    },

    async readProducts(appId) {
      const counter = { calls: 0 };
      const [purchases, pagesAndEvents] = await Promise.all([
        products.read(counter, appId),
        marketing.read(counter, appId),
      ]);
      return { products: [...purchases, ...pagesAndEvents], calls: counter.calls };
    },

    async writeProducts(_appId, changes, writeOptions) {
      const counter = { calls: 0 };
      const results = await Promise.all([
        products.write(
          counter,
          changes.filter((c) => !isMarketingChange(c)),
          writeOptions,
        ),
        ...changes.filter(isMarketingChange).map(async (change) => {
          const result = await marketing.writeOne(counter, change, writeOptions);
          const failed =
            result.failures.length > 0 || (result.media ?? []).some((m) => m.failures.length > 0);
          writeOptions.onProduct?.(change.productId, failed ? 'failed' : 'written');
          return [result];
        }),
      ]);
      // In the order asked for.
      const byId = new Map(results.flat().map((r) => [r.productId, r]));
      return { results: changes.map((c) => byId.get(c.productId)!), calls: counter.calls };
    },

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
