/**
 * A custom product page's screenshots and previews are media slots of the page (design.md §18):
 * the media library keys them `page:<pageId>:<slotType>` beside the default page's `<slotType>`,
 * so that one set of slots, changesets, approvals and pushes carries both. Apple's page ids hold
 * no colon; slot types never do. Free of Node APIs: the dashboard reads these keys too.
 */
const PREFIX = 'page:';

export const pageSlot = (pageId: string, slotType: string) => `${PREFIX}${pageId}:${slotType}`;

/** The page and slot type a key stands for; null for a slot of the default page. */
export function parsePageSlot(key: string): { pageId: string; slotType: string } | null {
  if (!key.startsWith(PREFIX)) return null;
  const colon = key.lastIndexOf(':');
  if (colon <= PREFIX.length) return null;
  return { pageId: key.slice(PREFIX.length, colon), slotType: key.slice(colon + 1) };
}

/** The slot key of a slot type on a page, or on the default page when `pageId` is absent. */
export const slotKey = (slotType: string, pageId?: string | null) =>
  pageId === undefined || pageId === null ? slotType : pageSlot(pageId, slotType);
