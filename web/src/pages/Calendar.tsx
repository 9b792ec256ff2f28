/**
 * The release calendar of a project (design.md §20): upcoming and past schedules with their state
 * and what each pushes, in the viewer's time zone; a form that schedules the pending changes (by
 * the diff hash the viewer sees) or a release control at a wall-clock time in that zone, with an
 * optional revert time for a campaign. The server turns the wall-clock time into UTC with the
 * zone's offset on that day, so a date across a daylight-saving change lands where it was meant.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import type { paths } from '../api/schema';
import { Link } from '../router';
import { canEdit, type Session } from '../session';
import { BusyButton, ErrorMessage, Section } from '../ui';

type Schedule =
  paths['/api/v1/projects/{projectId}/schedules']['get']['responses'][200]['content']['application/json']['data']['schedules'][number];
const ACTIVE = ['scheduled', 'running', 'live', 'reverting'];

const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
// dateStyle cannot be combined with timeZoneName: the parts are named one by one.
const shown = (iso: string) =>
  new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(iso));

const RELEASE_ACTIONS: { value: string; label: string; store: 'appstore' | 'playstore' }[] = [
  { value: 'pausePhasedRelease', label: 'App Store: pause the phased release', store: 'appstore' },
  { value: 'resumePhasedRelease', label: 'App Store: resume the phased release', store: 'appstore' },
  { value: 'completePhasedRelease', label: 'App Store: release to everyone', store: 'appstore' },
  { value: 'setRolloutFraction', label: 'Google Play: raise the staged rollout', store: 'playstore' },
  { value: 'haltRollout', label: 'Google Play: halt the rollout', store: 'playstore' },
  { value: 'resumeRollout', label: 'Google Play: resume the rollout', store: 'playstore' },
  { value: 'completeRollout', label: 'Google Play: complete the rollout', store: 'playstore' },
];

function describe(schedule: Schedule): string {
  if (schedule.kind === 'release' && schedule.release !== null) {
    const action =
      RELEASE_ACTIONS.find((a) => a.value === schedule.release!.action)?.label ?? schedule.release.action;
    return schedule.release.fraction === undefined
      ? action
      : `${action} to ${Math.round(schedule.release.fraction * 100)}%`;
  }
  const fields = schedule.summary?.fields ?? [];
  const named = fields.map(
    (f) => `${f.field} (${f.store === 'appstore' ? 'App Store' : 'Google Play'} ${f.locale})`,
  );
  const total = schedule.summary?.changeCount ?? 0;
  return `Push ${named.slice(0, 3).join(', ')}${total > 3 ? ` and ${total - 3} more` : ''}`;
}

export function Calendar({ session, projectId }: { session: Session; projectId: string }) {
  const list = useQuery({
    queryKey: keys.schedules(projectId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/schedules', {
          params: { path: { projectId }, query: { limit: 100 } },
        }),
      ),
    refetchInterval: 15_000,
  });
  const schedules = list.data?.schedules ?? [];
  const upcoming = schedules.filter((s) => ACTIVE.includes(s.status));
  const past = schedules.filter((s) => !ACTIVE.includes(s.status)).reverse();
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}`}>← Project</Link>
      </p>
      <h1>Release calendar</h1>
      <p>
        Times in {viewerZone()} (your time zone). A scheduled push sends exactly the changes it was scheduled
        with; if they or the store changed meanwhile, it is held and says why.
      </p>
      {canEdit(session) && <ScheduleForm projectId={projectId} />}
      <ErrorMessage error={list.error} />
      <Section title="Upcoming">
        <ScheduleTable
          projectId={projectId}
          schedules={upcoming}
          editable={canEdit(session)}
          empty="Nothing scheduled"
        />
      </Section>
      <Section title="Past">
        <ScheduleTable projectId={projectId} schedules={past} editable={false} empty="Nothing has run yet" />
      </Section>
    </>
  );
}

function ScheduleTable(props: {
  projectId: string;
  schedules: Schedule[];
  editable: boolean;
  empty: string;
}) {
  const { projectId, schedules, editable, empty } = props;
  const client = useQueryClient();
  const cancel = useMutation({
    mutationFn: (scheduleId: string) =>
      unwrap(
        api.DELETE('/api/v1/projects/{projectId}/schedules/{scheduleId}', {
          params: { path: { projectId, scheduleId } },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.schedules(projectId) }),
  });
  if (schedules.length === 0) return <p>{empty}</p>;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">State</th>
            <th scope="col">Note</th>
            {editable && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {schedules.map((s) => (
            <tr key={s.id}>
              <td>
                {shown(s.at)}
                {s.revertAt !== null && <div className="hint">put back {shown(s.revertAt)}</div>}
              </td>
              <td>{describe(s)}</td>
              <td>
                <span className={`state state-${s.status}`}>{s.status}</span>
                {s.reason !== null && <div className="hint">{s.reason}</div>}
              </td>
              <td>{s.note ?? ''}</td>
              {editable && (
                <td>
                  {(s.status === 'scheduled' || s.status === 'live') && (
                    <BusyButton
                      busy={cancel.isPending && cancel.variables === s.id}
                      onClick={() => cancel.mutate(s.id)}
                      aria-label={`Cancel the schedule of ${shown(s.at)}`}
                    >
                      {s.status === 'live' ? 'Keep, do not put back' : 'Cancel'}
                    </BusyButton>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorMessage error={cancel.error} />
    </>
  );
}

function ScheduleForm({ projectId }: { projectId: string }) {
  const client = useQueryClient();
  const diff = useQuery({
    queryKey: keys.diff(projectId),
    queryFn: () => unwrap(api.GET('/api/v1/projects/{projectId}/diff', { params: { path: { projectId } } })),
  });
  const [what, setWhat] = useState<'push' | 'release'>('push');
  const [at, setAt] = useState('');
  const [revertAt, setRevertAt] = useState('');
  const [note, setNote] = useState('');
  const [action, setAction] = useState(RELEASE_ACTIONS[0]!.value);
  const [track, setTrack] = useState('production');
  const [percent, setPercent] = useState('50');
  const d = diff.data;
  const pending =
    d === undefined
      ? 0
      : d.changeCount +
        d.mediaChangeCount +
        d.releaseNoteChangeCount +
        d.productChangeCount +
        (d.detailChangeCount ?? 0);
  const create = useMutation({
    mutationFn: () => {
      const chosen = RELEASE_ACTIONS.find((a) => a.value === action)!;
      const release = {
        store: chosen.store,
        action: chosen.value,
        ...(chosen.store === 'playstore' && { track }),
        ...(chosen.value === 'setRolloutFraction' && { fraction: Number(percent) / 100 }),
      };
      return unwrap(
        api.POST('/api/v1/projects/{projectId}/schedules', {
          params: { path: { projectId } },
          body: {
            at,
            timeZone: viewerZone(),
            ...(what === 'push' ? { hash: diff.data?.hash ?? '' } : { release: release as never }),
            ...(what === 'push' && revertAt !== '' && { revertAt }),
            ...(note !== '' && { note }),
          },
        }),
      );
    },
    onSuccess: async () => {
      setAt('');
      setRevertAt('');
      setNote('');
      await client.invalidateQueries({ queryKey: keys.schedules(projectId) });
    },
  });
  return (
    <Section title="Schedule">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <fieldset>
          <legend>What</legend>
          <label className="check">
            <input type="radio" name="what" checked={what === 'push'} onChange={() => setWhat('push')} /> Push
            the pending changes ({pending} {pending === 1 ? 'change' : 'changes'})
          </label>
          <label className="check">
            <input
              type="radio"
              name="what"
              checked={what === 'release'}
              onChange={() => setWhat('release')}
            />{' '}
            A release control
          </label>
        </fieldset>
        {what === 'release' && (
          <>
            <label htmlFor="schedule-action">Release control</label>
            <select id="schedule-action" value={action} onChange={(e) => setAction(e.target.value)}>
              {RELEASE_ACTIONS.map((a) => (
                <option key={a.value} value={a.value}>
                  {a.label}
                </option>
              ))}
            </select>
            {RELEASE_ACTIONS.find((a) => a.value === action)?.store === 'playstore' && (
              <>
                <label htmlFor="schedule-track">Track</label>
                <input id="schedule-track" value={track} onChange={(e) => setTrack(e.target.value)} />
              </>
            )}
            {action === 'setRolloutFraction' && (
              <>
                <label htmlFor="schedule-percent">Share of users (%)</label>
                <input
                  id="schedule-percent"
                  type="number"
                  min={1}
                  max={99}
                  value={percent}
                  onChange={(e) => setPercent(e.target.value)}
                />
              </>
            )}
          </>
        )}
        <label htmlFor="schedule-at">When ({viewerZone()})</label>
        <input
          id="schedule-at"
          type="datetime-local"
          required
          value={at}
          onChange={(e) => setAt(e.target.value)}
        />
        {what === 'push' && (
          <>
            <label htmlFor="schedule-revert">Put the texts back at (a campaign; optional)</label>
            <input
              id="schedule-revert"
              type="datetime-local"
              value={revertAt}
              onChange={(e) => setRevertAt(e.target.value)}
            />
          </>
        )}
        <label htmlFor="schedule-note">Note</label>
        <input id="schedule-note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
        <BusyButton
          type="submit"
          busy={create.isPending}
          disabled={at === '' || (what === 'push' && pending === 0)}
        >
          Schedule
        </BusyButton>
        <ErrorMessage error={create.error} />
        {create.data?.approval?.required === true && !create.data.approval.approved && (
          <p role="status">
            Scheduled. An admin has not approved these changes yet: it holds at its time unless they do.
          </p>
        )}
      </form>
    </Section>
  );
}
