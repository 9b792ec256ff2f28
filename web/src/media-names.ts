/**
 * Bulk upload by file name: `<locale>_<slot>_<number>.<ext>` places a file — `de-DE_APP_IPHONE_67_1.png`,
 * `fr-FR_phoneScreenshots_02.png`. The slot is the store's slot type; Apple's may drop its `APP_`
 * (`de-DE_IPHONE_67_1.png`). Case does not matter. The number orders the files of a slot.
 */

export interface Placement {
  file: File;
  locale: string;
  slotType: string;
  position: number;
}

export interface Unplaced {
  file: File;
  reason: string;
}

const NAME = /^([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,4}){0,2})_(.+)_(\d{1,3})\.[A-Za-z0-9]+$/;

/** Where each file goes, in upload order (locale, slot, number), and the files that fit nowhere. */
export function placeByName(
  files: readonly File[],
  locales: readonly string[],
  slotTypes: readonly string[],
): { placed: Placement[]; unplaced: Unplaced[] } {
  const localeOf = new Map(locales.map((l) => [l.toLowerCase(), l]));
  const slotOf = new Map<string, string>();
  for (const slot of slotTypes) {
    slotOf.set(slot.toLowerCase(), slot);
    if (slot.startsWith('APP_')) slotOf.set(slot.slice(4).toLowerCase(), slot);
  }
  const placed: Placement[] = [];
  const unplaced: Unplaced[] = [];
  for (const file of files) {
    const found = NAME.exec(file.name);
    if (found === null) {
      unplaced.push({ file, reason: 'the name is not locale_slot_number, e.g. de-DE_APP_IPHONE_67_1.png' });
      continue;
    }
    const [, rawLocale = '', rawSlot = '', number = ''] = found;
    const locale = localeOf.get(rawLocale.toLowerCase());
    const slotType = slotOf.get(rawSlot.toLowerCase());
    if (locale === undefined)
      unplaced.push({ file, reason: `${rawLocale} is not a locale of this store's listings` });
    else if (slotType === undefined)
      unplaced.push({ file, reason: `${rawSlot} is not a slot of this store` });
    else placed.push({ file, locale, slotType, position: Number(number) });
  }
  placed.sort(
    (a, b) =>
      a.locale.localeCompare(b.locale) || a.slotType.localeCompare(b.slotType) || a.position - b.position,
  );
  return { placed, unplaced };
}
