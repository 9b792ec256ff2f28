/** The files and folders of deliver's and supply's layouts, as fastlane names them (stores.md §7). */
export const DELIVER_FILES: Readonly<Record<string, string>> = {
  name: 'name.txt',
  subtitle: 'subtitle.txt',
  privacyPolicyUrl: 'privacy_url.txt',
  description: 'description.txt',
  keywords: 'keywords.txt',
  whatsNew: 'release_notes.txt',
  promotionalText: 'promotional_text.txt',
  supportUrl: 'support_url.txt',
  marketingUrl: 'marketing_url.txt',
};

export const SUPPLY_FILES: Readonly<Record<string, string>> = {
  title: 'title.txt',
  shortDescription: 'short_description.txt',
  fullDescription: 'full_description.txt',
  video: 'video.txt',
};

export const fieldOfFile = (table: Readonly<Record<string, string>>, file: string) =>
  Object.keys(table).find((field) => table[field] === file);

/** Where fastlane keeps the tree, relative to the project's root. */
export const FASTLANE_TREE = 'fastlane/metadata';

/** deliver's folders that are not locales (stores.md §7), with what they hold. A Map: names come from users. */
export const DELIVER_SPECIAL: ReadonlyMap<string, string> = new Map([
  ['review_information', 'App Review contact details'],
  ['trade_representative_contact_information', 'the trade representative contact (Korea)'],
  ['app_clip_review_information', 'App Clip review details'],
  ['fonts', 'fonts for frameit'],
  ['appletv', 'Apple TV metadata'],
  ['imessage', 'iMessage metadata'],
]);

/** supply's sub-folders of a language folder, with what they hold. */
export const SUPPLY_SPECIAL: ReadonlyMap<string, string> = new Map([
  ['changelogs', 'release notes per version code (changelogs), not listing texts'],
  ['images', 'images (screenshots, icon, feature graphic), not listing texts'],
]);
