/**
 * A push to the App Store as named steps: the texts of each locale (app info and version
 * localizations, side by side, only what differs from the store), locales removed, then the media
 * of each slot on the editable version.
 */
import {
  StoreError,
  type LocaleChange,
  type LocaleFailure,
  type MediaSlotResult,
  type PushOptions,
  type PushReport,
} from '../store-connector.js';
import { readContainers, type Container } from './containers.js';
import { ALWAYS_EDITABLE, splitFields, type JsonApiResource } from './mapper.js';
import type { AscClient, Counter } from './client.js';
import { slotRefused, type AscMedia } from './media.js';

/** A create sends only the attributes that have a value; null means "not set" there. */
function attributesWithout(attributes: Record<string, string | null>) {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== null));
}

/** Writes one localization's changed attributes: PATCH what differs, or POST a new one. */
async function writeResource(
  client: AscClient,
  counter: Counter,
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

export function createAscWrite(client: AscClient, media: AscMedia) {
  return async function write(
    appId: string,
    changes: LocaleChange[],
    options: PushOptions,
  ): Promise<PushReport> {
    const counter = { calls: 0, beforeWrite: options.beforeWrite };
    const { info, ver, infoLocs, verLocs } = await readContainers(client, counter, appId);
    const failures: LocaleFailure[] = [];
    const written: string[] = [];
    const removed: string[] = [];
    const fail = (locale: string, error: unknown) => {
      if (!(error instanceof StoreError)) throw error;
      failures.push({ locale, field: error.field, error: { code: error.code, message: error.message } });
    };

    // The texts of every locale.
    await Promise.all(
      changes.map(async (change) => {
        const { info: infoAttrs, version: versionAttrs } = splitFields(change.fields);
        try {
          // The two resources of a locale are independent: written side by side.
          const results = await Promise.allSettled([
            writeResource(
              client,
              counter,
              'appInfoLocalizations',
              info,
              infoLocs.get(change.locale),
              change.locale,
              infoAttrs,
            ),
            writeResource(
              client,
              counter,
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

    // Locales removed (prune).
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

    // Media, once the texts have created the localizations they need.
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
            mediaResults.push(slotRefused(slot, code, message));
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
  };
}
