/**
 * Apple's rules as the App Store Connect emulator enforces them (stores.md §2.1, §3, §4). Kept
 * apart from the service's own tables on purpose: an emulator must not inherit a connector's
 * mistake.
 */

/** Apple's 50 locale codes (case-sensitive, stores.md §4). */
export const LOCALES: ReadonlySet<string> = new Set(
  (
    'ar-SA bn-BD ca cs da de-DE el en-AU en-CA en-GB en-US es-ES es-MX fi fr-CA fr-FR gu-IN he hi hr hu id it ja ' +
    'kn-IN ko ml-IN mr-IN ms nl-NL no or-IN pa-IN pl pt-BR pt-PT ro ru sk sl-SI sv ta-IN te-IN th tr uk ur-PK vi ' +
    'zh-Hans zh-Hant'
  ).split(' '),
);

export const INFO_ATTRIBUTES = [
  'name',
  'subtitle',
  'privacyPolicyUrl',
  'privacyChoicesUrl',
  'privacyPolicyText',
];
export const VERSION_ATTRIBUTES = [
  'description',
  'keywords',
  'marketingUrl',
  'promotionalText',
  'supportUrl',
  'whatsNew',
];
export const LIMITS: Record<string, number> = {
  name: 30,
  subtitle: 30,
  description: 4000,
  keywords: 100,
  promotionalText: 170,
  whatsNew: 4000,
};
export const EDITABLE_INFO = new Set([
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'WAITING_FOR_REVIEW',
]);
export const EDITABLE_VERSION = new Set([
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'METADATA_REJECTED',
  'WAITING_FOR_REVIEW',
  'INVALID_BINARY',
]);
export const MAX_TOKEN_LIFETIME_S = 20 * 60;
