/** Projects: the apps whose listings appmeta manages, and their routes. */
export {
  isLinked,
  normalizeProjectInput,
  STORE_IDENTIFIER,
  type Project,
  type ProjectInput,
  type ProjectWithMetadata,
} from './project.js';
export type { ProjectsRepository } from './projects.repository.js';
export { lockProject } from './project-lock.js';
export { projectRoutes } from './projects.routes.js';
export { ProjectParams } from './projects.schemas.js';
export { createProjectsService, type ProjectsService } from './projects.service.js';
