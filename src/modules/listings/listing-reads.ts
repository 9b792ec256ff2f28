/**
 * What other features read of a project's listings (release notes, the translation matrix): the
 * listings with their fields, without the rest of the listings' storage.
 */
import type { Executor } from '../../db/database.js';
import { listingsRepository, type ListingWithFields } from './listings.repository.js';

export const listingsWithFields = (
  db: Executor,
  organizationId: string,
  projectId: string,
): Promise<ListingWithFields[]> => listingsRepository.listWithFields(db, organizationId, projectId);
