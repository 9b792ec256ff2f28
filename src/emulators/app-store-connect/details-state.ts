/**
 * The App Store emulator's app details (stores-more.md §C1–C3): copyright per version, categories
 * per appInfo, App Review details per version, and Apple's category catalogue.
 */
/** Apple's top-level categories (ids as the API names them) and the two with subcategories. */
export const CATEGORIES: Record<string, string[]> = {
  BOOKS: [],
  BUSINESS: [],
  DEVELOPER_TOOLS: [],
  EDUCATION: [],
  ENTERTAINMENT: [],
  FINANCE: [],
  FOOD_AND_DRINK: [],
  GAMES: ['GAMES_ACTION', 'GAMES_ADVENTURE', 'GAMES_BOARD', 'GAMES_CARD', 'GAMES_CASUAL', 'GAMES_PUZZLE'],
  GRAPHICS_AND_DESIGN: [],
  HEALTH_AND_FITNESS: [],
  LIFESTYLE: [],
  MAGAZINES_AND_NEWSPAPERS: [],
  MEDICAL: [],
  MUSIC: [],
  NAVIGATION: [],
  NEWS: [],
  PHOTO_AND_VIDEO: [],
  PRODUCTIVITY: [],
  REFERENCE: [],
  SHOPPING: [],
  SOCIAL_NETWORKING: [],
  SPORTS: [],
  STICKERS: ['STICKERS_ANIMALS', 'STICKERS_ART', 'STICKERS_EMOJI_AND_EXPRESSIONS'],
  TRAVEL: [],
  UTILITIES: [],
  WEATHER: [],
};

export const REVIEW_ATTRIBUTES = [
  'contactFirstName',
  'contactLastName',
  'contactPhone',
  'contactEmail',
  'demoAccountName',
  'demoAccountPassword',
  'demoAccountRequired',
  'notes',
];

export interface ReviewDetail {
  id: string;
  versionId: string;
  attributes: Record<string, string | boolean | null>;
}

export function createDetailsState() {
  return {
    /** version id → copyright. */
    copyright: new Map<string, string | null>(),
    /** appInfo id → category relationships. */
    categories: new Map<string, { primaryCategory?: string | null; secondaryCategory?: string | null }>(),
    reviewDetails: new Map<string, ReviewDetail>(),
    /** Every write as "METHOD path", oldest first. */
    calls: [] as string[],
    clear() {
      for (const map of [this.copyright, this.categories, this.reviewDetails]) map.clear();
      this.calls.length = 0;
    },
  };
}
