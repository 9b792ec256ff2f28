/**
 * Scoped access (design.md §16): a member may be narrowed to some projects and some locales, and
 * may be let approve changes inside them; admins never are. Enforced here for every adapter: a
 * project outside the scope does not exist for the member, a write to a locale outside it is
 * refused naming the locales.
 */
import { forbidden, invalid, invalidField, notFound, type ErrorDetail } from '../../errors.js';
import { isStoreLocale } from '../../shared/stores.js';
import type { Role } from './roles.js';
import type { AccessScope, Principal, RequestContext } from './context.js';

export type { AccessScope };

export const FULL_SCOPE: AccessScope = { projects: 'all', locales: 'all', approve: false };

/** The scope a stored column holds (JSON, null for the default: everything, no approving). */
export function parseScope(json: string | null | undefined): AccessScope {
  if (json === null || json === undefined) return FULL_SCOPE;
  const raw = JSON.parse(json) as Partial<AccessScope>;
  return {
    projects: Array.isArray(raw.projects) ? raw.projects : 'all',
    locales: Array.isArray(raw.locales) ? raw.locales : 'all',
    approve: raw.approve === true,
  };
}

/** The column's value: null for the default scope, so that unscoped members need nothing stored. */
export const storedScope = (scope: AccessScope): string | null =>
  scope.projects === 'all' && scope.locales === 'all' && !scope.approve ? null : JSON.stringify(scope);

/** The caller's scope: admins (and the operator) always have all of it. */
export const scopeOf = (principal: Principal): AccessScope =>
  principal.role === 'admin' || principal.access === undefined ? FULL_SCOPE : principal.access;

/** Whether the caller may see the project at all. */
export function seesProject(ctx: RequestContext, projectId: string): boolean {
  const { projects } = scopeOf(ctx.principal);
  return projects === 'all' || projects.includes(projectId);
}

/** The projects the caller may see: null for all of them. */
export function visibleProjects(ctx: RequestContext): string[] | null {
  const { projects } = scopeOf(ctx.principal);
  return projects === 'all' ? null : projects;
}

/** 404 for a project outside the caller's scope: for them it does not exist. */
export function requireProjectInScope(ctx: RequestContext, projectId: string): void {
  if (!seesProject(ctx, projectId)) throw notFound('Project');
}

/** Whether the caller may write in every one of `locales`. */
export const coversLocales = (ctx: RequestContext, locales: Iterable<string>): boolean =>
  outsideLocales(ctx, locales).length === 0;

function outsideLocales(ctx: RequestContext, locales: Iterable<string>): string[] {
  const scope = scopeOf(ctx.principal).locales;
  if (scope === 'all') return [];
  return [...new Set(locales)].filter((locale) => !scope.includes(locale)).sort();
}

/** 403 FORBIDDEN naming the locales of a write that the caller's scope does not cover. */
export function requireLocalesInScope(ctx: RequestContext, locales: Iterable<string>): void {
  const outside = outsideLocales(ctx, locales);
  if (outside.length === 0) return;
  const scope = scopeOf(ctx.principal).locales as string[];
  throw forbidden(
    `Your access covers the locales ${scope.join(', ') || '(none)'}; this would change ${outside.join(', ')}`,
  );
}

/** 403 unless the caller may create projects: a member narrowed to some projects may not. */
export function requireAllProjects(ctx: RequestContext): void {
  if (visibleProjects(ctx) !== null) {
    throw forbidden('Your access is limited to some projects: an admin creates new ones');
  }
}

/** A scope as an admin sends it (design.md §16); a left-out part is "everything" (approve: false). */
export interface ScopeInput {
  projects?: 'all' | string[];
  locales?: 'all' | string[];
  approve?: boolean;
}

/** The project ids a scope names, for checking that the organization has them. */
export const scopeProjectIds = (input: ScopeInput | undefined): string[] =>
  Array.isArray(input?.projects) ? input.projects : [];

/**
 * The scope an admin asks for, checked against the member's role and what exists: admins are never
 * narrowed, viewers only to projects (they write nothing), locales must be a store's codes and
 * projects the organization's (each problem names its field, under `field`).
 */
export function checkScope(
  input: ScopeInput | undefined,
  role: Role,
  knownProjects: ReadonlySet<string>,
  field = 'access',
): AccessScope {
  const scope: AccessScope = {
    projects: input?.projects ?? 'all',
    locales: input?.locales ?? 'all',
    approve: input?.approve ?? false,
  };
  const narrowed = scope.projects !== 'all' || scope.locales !== 'all' || scope.approve;
  if (role === 'admin' && narrowed)
    throw invalidField(field, 'admins are never narrowed: they see everything');
  if (role === 'viewer' && (scope.locales !== 'all' || scope.approve)) {
    throw invalidField(field, 'a viewer can be narrowed to projects only: viewers change nothing');
  }
  const problems: ErrorDetail[] = [];
  if (Array.isArray(scope.projects)) {
    scope.projects = [...new Set(scope.projects)];
    scope.projects.forEach((id, i) => {
      if (!knownProjects.has(id))
        problems.push({ field: `${field}.projects[${i}]`, message: `no project ${id}` });
    });
  }
  if (Array.isArray(scope.locales)) {
    scope.locales = [...new Set(scope.locales)];
    scope.locales.forEach((locale, i) => {
      if (!isStoreLocale('appstore', locale) && !isStoreLocale('playstore', locale)) {
        problems.push({ field: `${field}.locales[${i}]`, message: `"${locale}" is no store's locale code` });
      }
    });
  }
  if (problems.length > 0)
    throw invalid(problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
  return scope;
}
