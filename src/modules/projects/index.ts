/** Projects: the apps whose listings appmeta manages, and their routes. */
export {
  isLinked,
  normalizeProjectInput,
  STORE_IDENTIFIER,
  type Project,
  type ProjectInput,
  type ProjectWithMetadata,
} from './project.js';
export { projectsRepository, toProject, type ProjectsRepository } from './projects.repository.js';
export { projectRoutes } from './projects.routes.js';
export { ProjectParams } from './projects.schemas.js';
export { createProjectsService, type ProjectsService } from './projects.service.js';
