import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { Link, navigate } from '../router';
import { canEdit, type Session } from '../session';
import { BusyButton, ErrorMessage, when } from '../ui';
import { keys } from '../api/keys';
import { useProjectsPage } from '../api/queries';

const PAGE = 20;

export function Projects({ session }: { session: Session }) {
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const projects = useProjectsPage(search, offset, PAGE);
  const total = projects.data?.total ?? 0;
  return (
    <>
      <div className="title-row">
        <h1>Projects</h1>
        {canEdit(session) && (
          <button type="button" onClick={() => setCreating(true)} aria-expanded={creating}>
            New project
          </button>
        )}
      </div>
      {creating && <NewProject onClose={() => setCreating(false)} />}
      <label htmlFor="search">Search projects</label>
      <input
        id="search"
        type="search"
        value={search}
        onChange={(e) => {
          setSearch(e.target.value);
          setOffset(0);
        }}
      />
      <ErrorMessage error={projects.error} />
      {projects.data && (
        <>
          <table>
            <caption>
              {total === 1 ? '1 project' : `${total} projects`}
              {search.trim() !== '' && ` matching “${search.trim()}”`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">App Store app</th>
                <th scope="col">Google Play package</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {projects.data.projects.map((project) => (
                <tr key={project.id}>
                  <td>
                    <Link href={`/projects/${project.id}`}>{project.name}</Link>
                  </td>
                  <td>{project.appStoreAppId ?? '—'}</td>
                  <td>{project.playStorePackageName ?? '—'}</td>
                  <td>{when(project.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Pages" className="pager">
            <button
              type="button"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE))}
            >
              Previous page
            </button>
            <span>
              {total === 0 ? 0 : offset + 1}–{Math.min(offset + PAGE, total)} of {total}
            </span>
            <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Next page
            </button>
          </nav>
        </>
      )}
    </>
  );
}

function NewProject({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [appStoreAppId, setAppStoreAppId] = useState('');
  const [playStorePackageName, setPlayStorePackageName] = useState('');
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/projects', {
          body: {
            name,
            ...(appStoreAppId.trim() !== '' && { appStoreAppId: appStoreAppId.trim() }),
            ...(playStorePackageName.trim() !== '' && { playStorePackageName: playStorePackageName.trim() }),
          },
        }),
      ),
    onSuccess: async (created) => {
      await client.invalidateQueries({ queryKey: keys.projects() });
      navigate(`/projects/${created.projectId}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="New project" className="panel">
      <label htmlFor="project-name">Project name</label>
      <input
        id="project-name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        maxLength={200}
      />
      <label htmlFor="app-store-id">App Store app ID</label>
      <input
        id="app-store-id"
        value={appStoreAppId}
        onChange={(e) => setAppStoreAppId(e.target.value)}
        inputMode="numeric"
      />
      <label htmlFor="play-package">Google Play package name</label>
      <input
        id="play-package"
        value={playStorePackageName}
        onChange={(e) => setPlayStorePackageName(e.target.value)}
      />
      <div className="actions">
        <BusyButton type="submit" busy={create.isPending}>
          Create project
        </BusyButton>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
      <ErrorMessage error={create.error} />
    </form>
  );
}
