/**
 * The lock every transaction that writes a project's data takes first (projects.repository.ts
 * says why it cannot deadlock): the one piece of the projects' storage other features use.
 */
import type { Executor } from '../../db/database.js';
import { projectsRepository } from './projects.repository.js';

export const lockProject = (db: Executor, projectId: string): Promise<void> =>
  projectsRepository.lock(db, projectId);
