/**
 * Google Play app details (stores-more.md §C5): the default language and contact details, read
 * inside an edit and written with one PATCH of only the changed fields (a PUT would replace the
 * whole object), then the edit's commit — a refusal of either fails every field sent.
 */
import {
  StoreError,
  type DetailsReport,
  type DetailsWriteOptions,
  type StoreDetails,
} from '../store-connector.js';
import type { Counter, PlayClient } from './client.js';

export const PLAY_DETAIL_FIELDS = ['contactEmail', 'contactPhone', 'contactWebsite', 'defaultLanguage'];

export function createPlayDetails(client: PlayClient) {
  return {
    async read(counter: Counter, pkg: string): Promise<StoreDetails> {
      const details = await client.inEdit(counter, pkg, (editUrl) =>
        client.call<Record<string, string | undefined>>(counter, 'GET', `${editUrl}/details`),
      );
      return Object.fromEntries(PLAY_DETAIL_FIELDS.map((field) => [field, details[field] ?? null]));
    },

    async write(
      counter: Counter & { beforeWrite?: () => Promise<void> },
      pkg: string,
      changes: StoreDetails,
      options: DetailsWriteOptions,
    ): Promise<Omit<DetailsReport, 'calls'>> {
      const fields = Object.keys(changes).filter((f) => PLAY_DETAIL_FIELDS.includes(f));
      if (fields.length === 0) return { written: [], failures: [] };
      const editUrl = await client.openEdit(counter, pkg);
      let committed = false;
      try {
        await options.beforeWrite?.();
        // An empty text clears a contact field; Google keeps no null.
        const body = Object.fromEntries(fields.map((f) => [f, changes[f] ?? '']));
        await client.call(counter, 'PATCH', `${editUrl}/details`, body);
        const query = options.changesNotSentForReview ? '?changesNotSentForReview=true' : '';
        await client.call(counter, 'POST', `${editUrl}:commit${query}`, undefined, false);
        committed = true;
        return { written: fields, failures: [] };
      } catch (error) {
        if (!(error instanceof StoreError) || error.code === 'CANCELLED') throw error;
        const refusal = { code: error.code, message: error.message };
        return { written: [], failures: fields.map((field) => ({ field, error: refusal })) };
      } finally {
        if (!committed) await client.deleteEdit(counter, editUrl);
      }
    },
  };
}
