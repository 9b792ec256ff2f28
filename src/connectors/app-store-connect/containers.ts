/**
 * Where an app's listing texts live in App Store Connect (stores.md §2.1): the editable appInfo
 * and the editable iOS version with the highest versionString, else the live ones, and their
 * localizations by locale.
 */
import type { AscClient, Counter } from './client.js';
import {
  compareVersions,
  EDITABLE_INFO_STATES,
  EDITABLE_VERSION_STATES,
  LIVE_INFO_STATES,
  LIVE_VERSION_STATES,
  type JsonApiResource,
} from './mapper.js';

const PAGE_LIMIT = 200;

export interface Container {
  id: string;
  editable: boolean;
}

/** The editable appInfo if there is one, else the live one (stores.md §2.1). */
export async function appInfo(client: AscClient, counter: Counter, appId: string): Promise<Container | null> {
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
export async function version(client: AscClient, counter: Counter, appId: string): Promise<Container | null> {
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

export async function readContainers(client: AscClient, counter: Counter, appId: string) {
  const [info, ver] = await Promise.all([appInfo(client, counter, appId), version(client, counter, appId)]);
  const [infoLocs, verLocs] = await Promise.all([
    info ? client.all(counter, `/v1/appInfos/${info.id}/appInfoLocalizations?limit=${PAGE_LIMIT}`) : [],
    ver
      ? client.all(counter, `/v1/appStoreVersions/${ver.id}/appStoreVersionLocalizations?limit=${PAGE_LIMIT}`)
      : [],
  ]);
  const byLocale = (items: JsonApiResource[]) =>
    new Map(items.map((item) => [String(item.attributes?.locale), item]));
  return { info, ver, infoLocs: byLocale(infoLocs), verLocs: byLocale(verLocs) };
}
