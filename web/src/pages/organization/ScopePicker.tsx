/**
 * What a member may touch (design.md §16): all projects or some, all languages or some, and
 * whether they may approve changes inside that. Admins are never narrowed; viewers only to
 * projects.
 */
import { useLocales, useProjectsPage } from '../../api/queries';

export type Role = 'admin' | 'member' | 'viewer';

export interface Scope {
  projects: 'all' | string[];
  locales: 'all' | string[];
  approve: boolean;
}

export const FULL_SCOPE: Scope = { projects: 'all', locales: 'all', approve: false };

/** The scope a role can have: an admin's is everything, a viewer's has no languages or approving. */
export const scopeFor = (role: Role, scope: Scope): Scope =>
  role === 'admin' ? FULL_SCOPE : role === 'viewer' ? { ...scope, locales: 'all', approve: false } : scope;

/** One line for a member list, with project names where they are known. */
export function scopeSummary(scope: Scope, projectName: (id: string) => string): string {
  const projects =
    scope.projects === 'all' ? 'all projects' : scope.projects.map(projectName).join(', ') || 'no project';
  const locales = scope.locales === 'all' ? 'all languages' : scope.locales.join(', ') || 'no language';
  return `${projects} · ${locales}${scope.approve ? ' · may approve' : ''}`;
}

export function ScopePicker({
  id,
  role,
  value,
  onChange,
}: {
  id: string;
  role: Role;
  value: Scope;
  onChange: (scope: Scope) => void;
}) {
  const projects = useProjectsPage('', 0, 100);
  const locales = useLocales();
  if (role === 'admin') return <p className="hint">Admins see and change everything.</p>;
  const codes = [
    ...new Set([
      ...(locales.data?.stores.appstore ?? []).map((l) => l.code),
      ...(locales.data?.stores.playstore ?? []).map((l) => l.code),
    ]),
  ].sort();
  const someProjects = value.projects !== 'all';
  const someLocales = value.locales !== 'all';
  return (
    <fieldset className="scope">
      <legend>Access</legend>
      <label className="check">
        <input
          type="checkbox"
          checked={someProjects}
          onChange={(e) => onChange({ ...value, projects: e.target.checked ? [] : 'all' })}
        />
        Only some projects
      </label>
      {someProjects && (
        <>
          <label htmlFor={`${id}-projects`}>Projects</label>
          <select
            id={`${id}-projects`}
            multiple
            value={value.projects}
            onChange={(e) =>
              onChange({ ...value, projects: [...e.target.selectedOptions].map((o) => o.value) })
            }
          >
            {projects.data?.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </>
      )}
      {role === 'member' && (
        <>
          <label className="check">
            <input
              type="checkbox"
              checked={someLocales}
              onChange={(e) => onChange({ ...value, locales: e.target.checked ? [] : 'all' })}
            />
            Only some languages
          </label>
          {someLocales && (
            <>
              <label htmlFor={`${id}-locales`}>Languages</label>
              <select
                id={`${id}-locales`}
                multiple
                value={value.locales}
                onChange={(e) =>
                  onChange({ ...value, locales: [...e.target.selectedOptions].map((o) => o.value) })
                }
              >
                {codes.map((code) => (
                  <option key={code} value={code}>
                    {code}
                  </option>
                ))}
              </select>
            </>
          )}
          <label className="check">
            <input
              type="checkbox"
              checked={value.approve}
              onChange={(e) => onChange({ ...value, approve: e.target.checked })}
            />
            May approve changes inside this access
          </label>
        </>
      )}
    </fieldset>
  );
}
