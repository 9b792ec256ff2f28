import type { Diff } from '../../api/queries';
import type { Session } from '../../session';

/** What each part of a project's review (the approval, the push) is given. */
export interface ReviewProps {
  session: Session;
  projectId: string;
  diff: Diff;
  /** Refreshes what a change of the review touches (the diff, the project, its listings). */
  onChanged: () => unknown;
}
