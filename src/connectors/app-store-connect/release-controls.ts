/**
 * App Store release controls (stores-media.md B1.1, the spec's appStoreVersionPhasedReleases): the
 * newest iOS version's `releaseType` (MANUAL, AFTER_APPROVAL, SCHEDULED with
 * `earliestReleaseDate`), PATCHed on the version; its phased release created (INACTIVE until the
 * version goes live) and moved between ACTIVE, PAUSED and COMPLETE by PATCH. The store decides
 * which moves its state allows; its refusal is passed on.
 */
import {
  StoreError,
  type ReleaseControl,
  type StorePhasedRelease,
  type StoreReleaseControls,
} from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import { compareVersions, type JsonApiResource } from './mapper.js';

const PHASED_STATE = {
  pausePhasedRelease: 'PAUSED',
  resumePhasedRelease: 'ACTIVE',
  completePhasedRelease: 'COMPLETE',
} as const;

const text = (value: unknown) => (typeof value === 'string' ? value : null);
const count = (value: unknown) => (typeof value === 'number' ? value : null);

function phasedOf(resource: JsonApiResource | null | undefined): StorePhasedRelease | null {
  if (resource === null || resource === undefined) return null;
  const a = resource.attributes ?? {};
  return {
    id: resource.id,
    state: text(a.phasedReleaseState) ?? 'INACTIVE',
    startDate: text(a.startDate),
    currentDayNumber: count(a.currentDayNumber),
    totalPauseDuration: count(a.totalPauseDuration),
  };
}

export function createAscReleaseControls(client: AscClient) {
  /** The newest iOS version (highest version string), whatever its state. */
  async function newest(counter: Counter, appId: string): Promise<JsonApiResource | null> {
    const versions = await client.all(
      counter,
      `/v1/apps/${encodeURIComponent(appId)}/appStoreVersions?filter[platform]=IOS&limit=200`,
    );
    return (
      [...versions].sort((a, b) =>
        compareVersions(String(b.attributes?.versionString), String(a.attributes?.versionString)),
      )[0] ?? null
    );
  }

  async function phasedRelease(counter: Counter, versionId: string): Promise<StorePhasedRelease | null> {
    try {
      const answer = await client.call(
        counter,
        'GET',
        `/v1/appStoreVersions/${versionId}/appStoreVersionPhasedRelease`,
      );
      return phasedOf(answer.data as JsonApiResource | null);
    } catch (error) {
      if (error instanceof StoreError && error.status === 404) return null;
      throw error;
    }
  }

  async function read(counter: Counter, appId: string): Promise<StoreReleaseControls> {
    const version = await newest(counter, appId);
    if (version === null) return { version: null };
    const a = version.attributes ?? {};
    return {
      version: {
        id: version.id,
        versionString: String(a.versionString),
        state: text(a.appVersionState) ?? text(a.appStoreState) ?? '',
        releaseType: text(a.releaseType),
        earliestReleaseDate: text(a.earliestReleaseDate),
        phasedRelease: await phasedRelease(counter, version.id),
      },
    };
  }

  async function apply(
    counter: Counter,
    appId: string,
    control: ReleaseControl,
  ): Promise<StoreReleaseControls> {
    const version = await newest(counter, appId);
    if (version === null) {
      throw new StoreError('appstore', 'NOT_FOUND', 'The app has no App Store version yet', 404, false);
    }
    switch (control.action) {
      case 'setReleaseType':
        await client.call(counter, 'PATCH', `/v1/appStoreVersions/${version.id}`, {
          data: {
            type: 'appStoreVersions',
            id: version.id,
            attributes: {
              releaseType: control.releaseType,
              ...(control.releaseType === 'SCHEDULED' && {
                earliestReleaseDate: control.earliestReleaseDate,
              }),
            },
          },
        });
        break;
      case 'enablePhasedRelease':
        await client.call(counter, 'POST', '/v1/appStoreVersionPhasedReleases', {
          data: {
            type: 'appStoreVersionPhasedReleases',
            attributes: { phasedReleaseState: 'INACTIVE' },
            relationships: { appStoreVersion: { data: { type: 'appStoreVersions', id: version.id } } },
          },
        });
        break;
      case 'pausePhasedRelease':
      case 'resumePhasedRelease':
      case 'completePhasedRelease': {
        const phased = await phasedRelease(counter, version.id);
        if (phased === null) {
          throw new StoreError(
            'appstore',
            'NOT_FOUND',
            `Version ${String(version.attributes?.versionString)} has no phased release`,
            404,
            false,
          );
        }
        await client.call(counter, 'PATCH', `/v1/appStoreVersionPhasedReleases/${phased.id}`, {
          data: {
            type: 'appStoreVersionPhasedReleases',
            id: phased.id,
            attributes: { phasedReleaseState: PHASED_STATE[control.action] },
          },
        });
        break;
      }
      default:
        throw new StoreError(
          'appstore',
          'UNSUPPORTED',
          `${control.action} is a Google Play control`,
          null,
          false,
        );
    }
    return read(counter, appId);
  }

  return { read, apply };
}
