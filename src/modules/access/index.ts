/** Who may do what: roles, the request context, and the operation table. */
export {
  operatorContext,
  OPERATOR_MEMBER_ID,
  recordedContext,
  type RecordedActor,
  type Caller,
  type Principal,
  type RequestContext,
} from './context.js';
export {
  authorize,
  isAllowed,
  isOperation,
  OPERATIONS,
  PERMISSIONS,
  type Access,
  type OperationId,
  type Permission,
  type RoleOperation,
} from './operations.js';
export { isRole, ROLES, type Role } from './roles.js';
export {
  checkScope,
  coversLocales,
  FULL_SCOPE,
  parseScope,
  requireAllProjects,
  requireLocalesInScope,
  requireProjectInScope,
  scopeOf,
  scopeProjectIds,
  seesProject,
  storedScope,
  visibleProjects,
  type AccessScope,
  type ScopeInput,
} from './scope.js';
