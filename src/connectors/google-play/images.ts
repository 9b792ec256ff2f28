/**
 * Google Play images inside an edit (stores-media.md A2): read each language's images per type,
 * and bring a changed slot to its files the way supply's sync does (A2.5) — keep the longest
 * prefix the store already has in order, delete the rest, upload the new tail in order (Play has
 * no reorder call). Single images (icon, feature graphic, TV banner) are replaced by an upload.
 * Nothing is live until the edit is committed.
 */
import {
  StoreError,
  type MediaItemFailure,
  type MediaSlotChange,
  type StoreMedia,
  type StoreMediaFile,
} from '../store-connector.js';
import type { Counter, PlayClient } from './client.js';

export const IMAGE_TYPES = [
  'phoneScreenshots',
  'sevenInchScreenshots',
  'tenInchScreenshots',
  'tvScreenshots',
  'wearScreenshots',
  'icon',
  'featureGraphic',
  'tvBanner',
] as const;
const SINGLE = new Set(['icon', 'featureGraphic', 'tvBanner']);

interface Image {
  id: string;
  url: string;
  sha1?: string;
  sha256: string;
}

/** A slot as pushed: its files in store order once the edit commits, and what it took. */
export interface PlaySlotWrite {
  change: MediaSlotChange;
  /** What the slot held when the edit was opened (what stays if the edit does not commit). */
  before: string[];
  after: string[];
  uploaded: string[];
  deleted: number;
  bytes: number;
  failures: MediaItemFailure[];
}

export function createPlayImages(client: PlayClient) {
  const listUrl = (editUrl: string, language: string, type: string) =>
    `${editUrl}/listings/${encodeURIComponent(language)}/${type}`;

  const list = async (counter: Counter, editUrl: string, language: string, type: string) =>
    (await client.call<{ images?: Image[] }>(counter, 'GET', listUrl(editUrl, language, type))).images ?? [];

  async function upload(counter: Counter, editUrl: string, change: MediaSlotChange, index: number) {
    const file = change.files[index]!;
    // The media endpoint is the same path under /upload/ (A2.1); the type is always explicit (A2.2).
    const url = listUrl(editUrl, change.locale, change.slotType).replace(
      '/androidpublisher/v3/',
      '/upload/androidpublisher/v3/',
    );
    await client.upload(counter, `${url}?uploadType=media`, file);
    return file;
  }

  return {
    /** Every language's images per type (sha256 as the identity; `=s0` is the full-size file). */
    async read(counter: Counter, editUrl: string, languages: string[]): Promise<StoreMedia> {
      const media: StoreMedia = new Map();
      await Promise.all(
        languages.map(async (language) => {
          const slots = new Map<string, StoreMediaFile[]>();
          for (const type of IMAGE_TYPES) {
            const images = await list(counter, editUrl, language, type);
            if (images.length === 0) continue;
            slots.set(
              type,
              images.map((image) => ({
                checksum: image.sha256.toLowerCase(),
                url: `${image.url}=s0`,
                fileName: null,
              })),
            );
          }
          media.set(language, slots);
        }),
      );
      return media;
    },

    /** Writes one slot in the edit; an upload the store refuses ends the slot there, said per file. */
    async writeSlot(counter: Counter, editUrl: string, change: MediaSlotChange): Promise<PlaySlotWrite> {
      const images = await list(counter, editUrl, change.locale, change.slotType);
      const before = images.map((image) => image.sha256.toLowerCase());
      const wanted = change.files.map((file) => file.sha256);
      const write: PlaySlotWrite = {
        change,
        before,
        after: [],
        uploaded: [],
        deleted: 0,
        bytes: 0,
        failures: [],
      };
      let keep = 0;
      while (keep < before.length && keep < wanted.length && before[keep] === wanted[keep]) keep += 1;
      if (SINGLE.has(change.slotType) && wanted.length === 1 && keep === 0) {
        // An upload replaces a single image: nothing to delete first (supply does the same).
      } else {
        for (const image of images.slice(keep)) {
          await client.call(
            counter,
            'DELETE',
            `${listUrl(editUrl, change.locale, change.slotType)}/${image.id}`,
          );
          write.deleted += 1;
        }
      }
      write.after = wanted.slice(0, keep);
      for (let index = keep; index < wanted.length; index += 1) {
        try {
          const file = await upload(counter, editUrl, change, index);
          write.after.push(file.sha256);
          write.uploaded.push(file.sha256);
          write.bytes += file.bytes;
        } catch (error) {
          if (!(error instanceof StoreError)) throw error;
          // The order is upload order: what follows a refused file cannot go in without it.
          write.failures.push({
            locale: change.locale,
            slotType: change.slotType,
            sha256: wanted[index]!,
            error: { code: error.code, message: `${change.files[index]!.fileName}: ${error.message}` },
          });
          break;
        }
      }
      return write;
    },
  };
}

export type PlayImages = ReturnType<typeof createPlayImages>;
