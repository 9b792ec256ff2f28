/**
 * A project's pending changes as a reviewer reads them: every kind (texts, screenshots and
 * previews with thumbnails, release notes) with counts per store, the approval, and the push.
 */
import { useDiff } from '../../api/queries';
import type { Session } from '../../session';
import { ErrorMessage, Section } from '../../ui';
import { ApprovalPanel } from './ApprovalPanel';
import { ChangeCounts, MediaChanges, ProductChanges, ReleaseNoteChanges, TextChanges } from './ChangeTables';
import { PushPanel } from './PushPanel';

export function PendingChanges({
  session,
  projectId,
  onChanged,
}: {
  session: Session;
  projectId: string;
  onChanged: () => unknown;
}) {
  const diff = useDiff(projectId);
  if (diff.isPending) return null;
  if (diff.error) return <ErrorMessage error={diff.error} />;
  const d = diff.data;
  return (
    <Section title="Pending changes">
      {d.inSync ? (
        <p>
          Nothing to push: the listings, screenshots, release notes and purchase texts match the stores as
          last synced.
        </p>
      ) : (
        <>
          <ChangeCounts counts={d.counts} caption="Changes to push, per store and kind" />
          <TextChanges stores={d.stores} />
          <MediaChanges media={d.media} />
          <ReleaseNoteChanges releaseNotes={d.releaseNotes} />
          <ProductChanges products={d.products} />
          {Object.entries(d.removedLocales).map(([store, locales]) => (
            <p key={store}>
              Removed here, still in {store === 'appstore' ? 'the App Store' : 'Google Play'}:{' '}
              {locales.join(', ')} (a push with prune removes them).
            </p>
          ))}
          <ApprovalPanel session={session} projectId={projectId} diff={d} onChanged={onChanged} />
        </>
      )}
      <PushPanel session={session} projectId={projectId} diff={d} onChanged={onChanged} />
    </Section>
  );
}
