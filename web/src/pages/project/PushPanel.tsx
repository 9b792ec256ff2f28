/**
 * Pushing a project's pending changes: a confirmation that names what will be written per store
 * and kind, the push run in the background with its live progress, then a result per store ×
 * locale × kind with each failure's reason and a way to push the failed locales again.
 */
import { useEffect, useRef, useState } from 'react';
import type { paths } from '../../api/schema';
import { useOperation } from '../../api/queries';
import { usePushPreview, useStartPush } from '../../api/review';
import { STORE_NAMES, type Store } from '../../listing-rules';
import { canEdit, isAdmin } from '../../session';
import { BusyButton, ErrorMessage } from '../../ui';
import type { ReviewProps } from './review';
import { ChangeCounts, countsSentence } from './ChangeTables';
import { Failures } from './Failures';

type PushAnswer =
  paths['/api/v1/projects/{projectId}/push']['post']['responses'][200]['content']['application/json']['data'];
/** What a finished push answers: its operation's outcome. */
type PushResult = Extract<PushAnswer, { pushedLocales: string[] }>;

const FINISHED = ['succeeded', 'partial', 'failed', 'cancelled'];

export function PushPanel({ session, projectId, diff, onChanged }: ReviewProps) {
  const preview = usePushPreview(projectId);
  const start = useStartPush(projectId);
  const [operationId, setOperationId] = useState<string | null>(null);
  const operation = useOperation(projectId, operationId);
  const record = operation.data?.operation;
  const finished = record !== undefined && FINISHED.includes(record.status);
  const finishedId = finished ? record.id : null;
  const changed = useRef(onChanged);
  changed.current = onChanged;
  useEffect(() => {
    // The push has ended, once: what it wrote is no longer pending.
    if (finishedId !== null) void changed.current();
  }, [finishedId]);
  if (!canEdit(session)) return null;
  const push = (locales?: string[]) =>
    start.mutate(locales, {
      onSuccess: (id) => {
        preview.reset();
        setOperationId(id);
      },
    });
  const plan = preview.data;
  const blocked =
    plan !== undefined && plan.approval.required && !plan.approval.approved && !isAdmin(session);
  const running = operationId !== null && !finished;
  return (
    <div className="push">
      {!running && !diff.inSync && (
        <BusyButton type="button" busy={preview.isPending} onClick={() => preview.mutate(undefined)}>
          Push to the stores…
        </BusyButton>
      )}
      {plan && (
        <div role="dialog" aria-label="Confirm the push" className="panel">
          <h3>Push these changes?</h3>
          <ChangeCounts counts={plan.counts} caption="What the push writes" />
          <p>{countsSentence(plan.counts) || 'Nothing to write.'}</p>
          {plan.uploadBytes > 0 && <p>{Math.ceil(plan.uploadBytes / 1024)} KiB of media to upload.</p>}
          {blocked ? (
            <p role="status">It needs an admin’s approval first.</p>
          ) : (
            <BusyButton type="button" busy={start.isPending} busyLabel="Starting…" onClick={() => push()}>
              Push now
            </BusyButton>
          )}
          <button type="button" onClick={() => preview.reset()}>
            Cancel
          </button>
        </div>
      )}
      <ErrorMessage error={preview.error ?? start.error ?? operation.error} />
      {running && record && <Progress record={record} />}
      {finished && record.outcome && (
        <PushResultView
          result={record.outcome as unknown as PushResult}
          status={record.status}
          onRetry={push}
          retrying={start.isPending}
        />
      )}
    </div>
  );
}

type Operation = NonNullable<ReturnType<typeof useOperation>['data']>['operation'];

function Progress({ record }: { record: Operation }) {
  const progress = record.progress;
  return (
    <div role="status" aria-label="Push progress">
      <h3>Pushing…</h3>
      {progress === null ? (
        <p>Waiting to start.</p>
      ) : (
        <>
          <progress value={progress.done} max={Math.max(progress.total, 1)} aria-label="Locales written" />
          <ul>
            {Object.entries(progress.stores).map(([store, part]) => (
              <li key={store}>
                {STORE_NAMES[store as Store]}: {part.done} of {part.total} locales
                {part.locales.length > 0 && ` (${part.locales.join(', ')})`}
                {part.media &&
                  part.media.total > 0 &&
                  `; ${part.media.done} of ${part.media.total} files uploaded`}
                {part.media && part.media.failed > 0 && `, ${part.media.failed} refused`}
                {part.products &&
                  part.products.total > 0 &&
                  `; ${part.products.done} of ${part.products.total} products written`}
                {part.products && part.products.failed > 0 && `, ${part.products.failed} refused`}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function PushResultView({
  result,
  status,
  onRetry,
  retrying,
}: {
  result: PushResult;
  status: string;
  onRetry: (locales: string[]) => void;
  retrying: boolean;
}) {
  const written = result.written ?? [];
  const failedLocales = [...new Set(result.failures.flatMap((f) => (f.locale === null ? [] : [f.locale])))];
  return (
    <div role="status" aria-label="Push result">
      <h3>Push result: {status}</h3>
      <table>
        <caption>What each store took, per locale</caption>
        <thead>
          <tr>
            <th scope="col">Store</th>
            <th scope="col">Locale</th>
            <th scope="col">Text fields</th>
            <th scope="col">Screenshot slots</th>
            <th scope="col">Files</th>
            <th scope="col">Release notes</th>
            <th scope="col">Purchase texts</th>
            <th scope="col">Failed</th>
          </tr>
        </thead>
        <tbody>
          {written.map((row) => (
            <tr key={`${row.store}-${row.locale}`}>
              <th scope="row">{STORE_NAMES[row.store as Store]}</th>
              <td>{row.locale}</td>
              <td>{row.fields}</td>
              <td>{row.mediaSlots}</td>
              <td>{row.mediaItems}</td>
              <td>{row.releaseNotes}</td>
              <td>{row.products}</td>
              <td>{row.failures}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Failures failures={result.failures} />
      {failedLocales.length > 0 && (
        <BusyButton type="button" busy={retrying} onClick={() => onRetry(failedLocales)}>
          Push the failed locales again ({failedLocales.join(', ')})
        </BusyButton>
      )}
    </div>
  );
}
