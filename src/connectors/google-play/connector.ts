/**
 * Google Play connector: listing texts per language inside an edit — read then delete the edit;
 * write changed languages, commit once, and delete the edit whenever it did not commit, so that no
 * edit is left open (stores.md §2.2).
 */
import { storeClientOptions, type ConnectorCallOptions } from '../resilience.js';
import {
  StoreError,
  type PlayStoreSecret,
  type StoreConnector,
  type StoreReleases,
  type StoreMedia,
  type StoreSnapshot,
} from '../store-connector.js';
import { createPlayClient } from './client.js';
import { createPlayImages } from './images.js';
import { createPlayTracks } from './tracks.js';
import { createPlayProducts } from './products.js';
import { createPlayDetails } from './details.js';
import { createPlayReleaseControls } from './release-controls.js';
import { createPlayWrite, fieldsOf, type Listing } from './edit-write.js';

const CONCURRENCY_PER_ACCOUNT = 8;

/** `concurrency` is per service account (default 8). */
export interface GooglePlayConnectorOptions extends ConnectorCallOptions {
  tokenUrl: string;
}

export function createGooglePlayConnector(
  secret: PlayStoreSecret,
  options: GooglePlayConnectorOptions,
): StoreConnector {
  const client = createPlayClient(secret, {
    ...storeClientOptions(
      options,
      'playstore',
      `playstore:${secret.serviceAccount.client_email}`,
      CONCURRENCY_PER_ACCOUNT,
    ),
    tokenUrl: options.tokenUrl,
  });

  const images = createPlayImages(client);
  const tracks = createPlayTracks(client);
  const products = createPlayProducts(client);
  const details = createPlayDetails(client);
  const releaseControls = createPlayReleaseControls(client, (counter, editUrl) =>
    tracks.read(counter, editUrl),
  );

  return {
    store: 'playstore',

    async verify() {
      await client.verify();
    },

    async read(pkg, readOptions = {}) {
      const counter = { calls: 0 };
      const snapshot: StoreSnapshot = new Map();
      let media: StoreMedia = new Map();
      const releases: StoreReleases = { versions: [], tracks: [] };
      await client.inEdit(counter, pkg, async (editUrl) => {
        const list = await client.call<{ listings?: Listing[] }>(counter, 'GET', `${editUrl}/listings`);
        for (const listing of list.listings ?? []) snapshot.set(listing.language, fieldsOf(listing));
        [media, releases.tracks] = await Promise.all([
          readOptions.media === false ? new Map() : images.read(counter, editUrl, [...snapshot.keys()]),
          readOptions.releases === false ? [] : tracks.read(counter, editUrl),
        ]);
      });
      return { snapshot, media, releases, calls: counter.calls };
    },

    write: createPlayWrite(client, images, tracks),

    download: (url, into) => client.download(url, into),

    async readReleases(pkg) {
      const counter = { calls: 0 };
      return {
        versions: [],
        tracks: await client.inEdit(counter, pkg, (editUrl) => tracks.read(counter, editUrl)),
      };
    },

    readReleaseControls: (pkg) => releaseControls.read({ calls: 0 }, pkg),

    applyReleaseControl: (pkg, control) => releaseControls.apply({ calls: 0 }, pkg, control),

    async readDetails(pkg) {
      const counter = { calls: 0 };
      return { details: await details.read(counter, pkg), calls: counter.calls };
    },

    async writeDetails(pkg, changes, writeOptions) {
      const counter = { calls: 0 };
      return { ...(await details.write(counter, pkg, changes, writeOptions)), calls: counter.calls };
    },

    async readProducts(pkg) {
      const counter = { calls: 0 };
      return { products: await products.read(counter, pkg), calls: counter.calls };
    },

    async writeProducts(pkg, changes, writeOptions) {
      const counter = { calls: 0 };
      return { results: await products.write(counter, pkg, changes, writeOptions), calls: counter.calls };
    },

    // Custom store listings and store listing experiments have no public API (design.md §18).
    createVersion() {
      return Promise.reject(
        new StoreError(
          'playstore',
          'UNSUPPORTED',
          'Google Play has no versions to create: a release is made by uploading a bundle to a track',
          null,
          false,
        ),
      );
    },
  };
}
