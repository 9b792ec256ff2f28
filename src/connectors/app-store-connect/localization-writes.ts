/**
 * Writing one parent's localizations on App Store Connect, as purchases, custom product pages and
 * in-app events all need it: find where the texts go, then per locale PATCH only what differs from
 * the store (a resumed push writes nothing twice) or POST the localization it lacks — each locale
 * on its own, so that one refusal never stops the others.
 */
import { StoreError, type FieldValues, type LocaleFailure } from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import type { JsonApiResource } from './mapper.js';

export const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** locale → the named texts, from a parent's localizations. */
export const textsByLocale = (resources: JsonApiResource[], names: string[]): Map<string, FieldValues> =>
  new Map(
    resources.map((l) => [
      text(l.attributes?.locale) ?? '',
      Object.fromEntries(names.map((name) => [name, text(l.attributes?.[name])])),
    ]),
  );

/** Where a parent's localizations are written. */
export interface LocalizationTarget {
  /** The collection's path, e.g. `/v2/inAppPurchaseLocalizations`. */
  path: string;
  type: string;
  /** A new localization's relationship to its parent. */
  relationship: Record<string, { data: { type: string; id: string } }>;
  /** The parent's localizations as the store has them now. */
  existing: JsonApiResource[];
}

const failureOf = (locale: string, error: unknown): LocaleFailure => {
  if (!(error instanceof StoreError)) throw error;
  return { locale, field: error.field, error: { code: error.code, message: error.message } };
};

async function writeLocale(
  client: AscClient,
  counter: Counter,
  target: LocalizationTarget,
  locale: string,
  fields: FieldValues,
  beforeWrite: (() => Promise<void>) | undefined,
): Promise<string> {
  // Apple's locale codes are exact, but matching them case-insensitively never POSTs a duplicate.
  const found = target.existing.find(
    (l) => (text(l.attributes?.locale) ?? '').toLowerCase() === locale.toLowerCase(),
  );
  if (found !== undefined) {
    const differing = Object.fromEntries(
      Object.entries(fields).filter(
        ([name, value]) => (text(found.attributes?.[name]) || null) !== (value || null),
      ),
    );
    if (Object.keys(differing).length === 0) return found.id;
    await beforeWrite?.();
    await client.call(counter, 'PATCH', `${target.path}/${found.id}`, {
      data: { type: target.type, id: found.id, attributes: differing },
    });
    return found.id;
  }
  await beforeWrite?.();
  const created = await client.call(counter, 'POST', target.path, {
    data: {
      type: target.type,
      attributes: {
        locale,
        ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)),
      },
      relationships: target.relationship,
    },
  });
  return (created.data as JsonApiResource).id;
}

/**
 * Writes each locale's changed texts into the target `where` finds (a refusal there fails every
 * locale); a cancelled push stops at once, any other refusal is that locale's failure. Answers
 * each written locale's localization id (media hang under it).
 */
export async function writeLocales(
  client: AscClient,
  counter: Counter,
  where: () => Promise<LocalizationTarget>,
  locales: Record<string, FieldValues>,
  beforeWrite?: () => Promise<void>,
): Promise<{ written: string[]; failures: LocaleFailure[]; ids: Map<string, string> }> {
  const names = Object.keys(locales);
  let target: LocalizationTarget;
  try {
    target = await where();
  } catch (error) {
    return { written: [], failures: names.map((locale) => failureOf(locale, error)), ids: new Map() };
  }
  const result = { written: [] as string[], failures: [] as LocaleFailure[], ids: new Map<string, string>() };
  for (const locale of names) {
    try {
      result.ids.set(
        locale,
        await writeLocale(client, counter, target, locale, locales[locale]!, beforeWrite),
      );
      result.written.push(locale);
    } catch (error) {
      if (error instanceof StoreError && error.code === 'CANCELLED') throw error;
      result.failures.push(failureOf(locale, error));
    }
  }
  return result;
}
