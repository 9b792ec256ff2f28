/**
 * Versions, tracks and release notes of a project (design.md §13): the App Store versions with
 * What's New of the one being prepared per locale, and Google Play's tracks with each release's
 * notes per language — each with a live counter against the store's limit (4,000 / 500). Notes
 * are saved as working copies; they show in the pending changes and go out with the push.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { Link } from '../router';
import { plainState } from '../plain-words';
import { canEdit, type Session } from '../session';
import { BusyButton, ErrorMessage, Section } from '../ui';
import { keys } from '../api/keys';
import { useListings, useReleases, useStoreReleaseNotes } from '../api/queries';

const APP_STORE_MAX = 4000;
const PLAY_MAX = 500;
const codePoints = (text: string) => [...text].length;

type Note = { locale: string; value: string | null; base: string | null; state: string };

/** One note: a text area with its counter, saved on demand. */
function NoteEditor({
  id,
  label,
  note,
  max,
  editable,
  save,
}: {
  id: string;
  label: string;
  note: Note | undefined;
  max: number;
  editable: boolean;
  save: (text: string | null) => Promise<unknown>;
}) {
  const [text, setText] = useState(note?.value ?? '');
  const mutation = useMutation({ mutationFn: () => save(text === '' ? null : text) });
  const length = codePoints(text);
  const changed = text !== (note?.value ?? '');
  return (
    <div className="note">
      <label htmlFor={id}>
        {label}{' '}
        {note !== undefined && note.state !== 'unchanged' && (
          <span className={`state state-${note.state}`}>{note.state}</span>
        )}
      </label>
      <textarea
        id={id}
        value={text}
        rows={3}
        readOnly={!editable}
        aria-describedby={`${id}-count`}
        onChange={(e) => setText(e.target.value)}
      />
      <span className={length > max ? 'counter over' : 'counter'} id={`${id}-count`}>
        {length} / {max}
      </span>
      {editable && (
        <BusyButton
          type="button"
          busy={mutation.isPending}
          disabled={!changed || length > max}
          onClick={() => mutation.mutate()}
        >
          Save {label}
        </BusyButton>
      )}
      <ErrorMessage error={mutation.error} />
    </div>
  );
}

export function Releases({ session, projectId }: { session: Session; projectId: string }) {
  const queryClient = useQueryClient();
  const editable = canEdit(session);
  const releases = useReleases(projectId);
  const appNotes = useStoreReleaseNotes(projectId, 'appstore');
  const playNotes = useStoreReleaseNotes(projectId, 'playstore');
  const listings = useListings(projectId);
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.releaseNotes(projectId) });
  const [versionString, setVersionString] = useState('');
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/releases/appstore', {
          params: { path: { projectId } },
          body: { versionString },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.releases(projectId) }),
  });

  const locales = (store: 'appstore' | 'playstore') =>
    (listings.data?.listings ?? [])
      .filter((l) => l.store === store)
      .map((l) => l.locale)
      .sort();
  const apple = appNotes.data?.store === 'appstore' ? appNotes.data : null;
  const play = playNotes.data?.store === 'playstore' ? playNotes.data : null;

  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>Versions and release notes</h1>
      <ErrorMessage error={releases.error ?? appNotes.error ?? playNotes.error} />

      <Section title="App Store">
        {releases.data?.appStore == null ? (
          <p>Not synced yet: sync the project to see its versions.</p>
        ) : (
          <ul aria-label="App Store versions">
            {releases.data.appStore.versions.map((v) => (
              <li key={v.id}>
                {v.versionString} · {plainState(v.state)}
                {v.editable && ' · being prepared'}
                {v.firstVersion && " · the app's first version (no What's New)"}
              </li>
            ))}
          </ul>
        )}
        {editable && (
          <form
            className="inline"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate();
            }}
          >
            <label htmlFor="next-version">Next version</label>
            <input
              id="next-version"
              value={versionString}
              placeholder="2.4.0"
              onChange={(e) => setVersionString(e.target.value)}
            />
            <BusyButton type="submit" busy={create.isPending} disabled={versionString === ''}>
              Create version
            </BusyButton>
          </form>
        )}
        <ErrorMessage error={create.error} />
        {apple?.version != null && (
          <>
            <h3>What&apos;s New in {apple.version.versionString}</h3>
            {apple.version.firstVersion ? (
              <p>App Store Connect takes What&apos;s New only from an app&apos;s second version on.</p>
            ) : (
              locales('appstore').map((locale) => (
                <NoteEditor
                  key={`${apple.version!.versionString}-${locale}`}
                  id={`whatsnew-${locale}`}
                  label={`What's New (${locale})`}
                  note={apple.notes.find((n) => n.locale === locale)}
                  max={APP_STORE_MAX}
                  editable={canEdit(session, locale) && apple.version!.editable}
                  save={async (text) => {
                    await unwrap(
                      api.PATCH(
                        '/api/v1/projects/{projectId}/release-notes/appstore/{versionString}/{locale}',
                        {
                          params: {
                            path: { projectId, versionString: apple.version!.versionString, locale },
                          },
                          body: { text },
                        },
                      ),
                    );
                    await refresh();
                  }}
                />
              ))
            )}
          </>
        )}
      </Section>

      <Section title="Google Play">
        {play === null || play.releases.length === 0 ? (
          <p>No releases known: sync the project to see its tracks.</p>
        ) : (
          play.releases.map((release) => (
            <div key={`${release.track}-${release.versionCode}`}>
              <h3>
                {release.track} · {release.name ?? release.versionCode} · {plainState(release.status)}
              </h3>
              {locales('playstore').map((locale) => (
                <NoteEditor
                  key={`${release.track}-${release.versionCode}-${locale}`}
                  id={`notes-${release.track}-${release.versionCode}-${locale}`}
                  label={`Release notes (${locale})`}
                  note={release.notes.find((n) => n.locale === locale)}
                  max={PLAY_MAX}
                  editable={canEdit(session, locale)}
                  save={async (text) => {
                    await unwrap(
                      api.PATCH(
                        '/api/v1/projects/{projectId}/release-notes/playstore/{track}/{versionCode}/{locale}',
                        {
                          params: {
                            path: {
                              projectId,
                              track: release.track,
                              versionCode: release.versionCode,
                              locale,
                            },
                          },
                          body: { text },
                        },
                      ),
                    );
                    await refresh();
                  }}
                />
              ))}
            </div>
          ))
        )}
      </Section>
      <p>
        Saved notes are pending changes: review and push them from the{' '}
        <Link href={`/projects/${projectId}`}>project</Link>.
      </p>
    </>
  );
}
