/**
 * The approval of a project's pending changes: members ask with a note, admins see what waits
 * for them and approve exactly the changes shown (by their hash).
 */
import { useState } from 'react';
import { useApprovalRequests, useMembers } from '../../api/queries';
import { useApprove, useAskForApproval } from '../../api/review';
import { canEdit, isAdmin } from '../../session';
import type { ReviewProps } from './review';
import { BusyButton, ErrorMessage, when } from '../../ui';

export function ApprovalPanel({ session, projectId, diff, onChanged }: ReviewProps) {
  const requests = useApprovalRequests(projectId);
  const members = useMembers();
  const ask = useAskForApproval(projectId);
  const approve = useApprove(projectId, onChanged);
  const [note, setNote] = useState('');
  const { approval } = diff;
  if (!approval.required) return null;
  const nameOf = (memberId: string | null) =>
    members.data?.members.find((m) => m.id === memberId)?.name ?? 'an admin';
  if (approval.approved) {
    return (
      <p role="status">
        Approved by {nameOf(approval.approvedBy)} on {when(approval.approvedAt)}.
      </p>
    );
  }
  const open = requests.data?.requests ?? [];
  const mine = open.find((r) => r.requestedBy.memberId === session.member.id);
  return (
    <div className="approval">
      <p role="status">These changes need an admin’s approval before they can be pushed.</p>
      {open.length > 0 && (
        <ul aria-label="Approval requests">
          {open.map((r) => (
            <li key={r.id}>
              {r.requestedBy.name ?? 'A member'} asked on {when(r.createdAt)}
              {r.note !== null && <>: “{r.note}”</>}
            </li>
          ))}
        </ul>
      )}
      {isAdmin(session) || (session.role === 'member' && session.member.access.approve) ? (
        <BusyButton type="button" busy={approve.isPending} onClick={() => approve.mutate(diff.hash)}>
          Approve these changes
        </BusyButton>
      ) : (
        canEdit(session) &&
        (mine ? (
          <p>You asked for an approval; the admins see your request.</p>
        ) : (
          <form
            aria-label="Ask for approval"
            onSubmit={(e) => {
              e.preventDefault();
              ask.mutate(note, { onSuccess: () => setNote('') });
            }}
          >
            <label htmlFor="approval-note">Note for the approver (optional)</label>
            <textarea
              id="approval-note"
              value={note}
              maxLength={2000}
              onChange={(e) => setNote(e.target.value)}
            />
            <BusyButton type="submit" busy={ask.isPending}>
              Ask for approval
            </BusyButton>
          </form>
        ))
      )}
      <ErrorMessage error={requests.error ?? ask.error ?? approve.error} />
    </div>
  );
}
