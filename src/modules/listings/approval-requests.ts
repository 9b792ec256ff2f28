/**
 * Approval requests (design.md §15): a member asks an admin to approve the pending changes as
 * they stand, with a note; the request stays open until an approval closes it, or a new change
 * (a changeset with another hash) supersedes it.
 */
import type { Executor } from '../../db/database.js';
import { AppError, invalid } from '../../errors.js';
import { newId } from '../../shared/ids.js';
import { authorize, type RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import { isEmpty, type Changeset } from './changeset.js';
import type { ApprovalsDeps } from './approvals.js';
import {
  closeApprovalRequests,
  insertApprovalRequest,
  openApprovalRequests,
  type ApprovalRequestRow,
} from './approval-requests.repository.js';

export interface ApprovalRequest {
  id: string;
  projectId: string;
  /** The changeset asked about: the diff's hash when the request was made. */
  hash: string;
  note: string | null;
  requestedBy: { memberId: string | null; name: string | null };
  createdAt: string;
  /** What the changeset holds, per kind. */
  changes: { fields: number; media: number; releaseNotes: number; products: number; removedLocales: number };
}

/** What approvals need, and the database the requests are read from. */
export interface ApprovalRequestsDeps extends ApprovalsDeps {
  db: Executor;
}

export const changesOf = (changeset: Changeset): ApprovalRequest['changes'] => ({
  fields: changeset.changeCount,
  media: changeset.mediaChangeCount,
  releaseNotes: changeset.releaseNoteChangeCount,
  products: changeset.productChangeCount,
  removedLocales: Object.values(changeset.removedLocales).reduce((n, locales) => n + locales.length, 0),
});

const requestOf = (row: ApprovalRequestRow, changeset: Changeset): ApprovalRequest => ({
  id: row.id,
  projectId: row.project_id,
  hash: row.diff_hash,
  note: row.note,
  requestedBy: { memberId: row.requested_by, name: row.requester_name },
  createdAt: row.created_at,
  changes: changesOf(changeset),
});

export function createApprovalRequests(deps: ApprovalRequestsDeps) {
  const { db, clock, audit, projects, diffs, writer, outbox } = deps;

  /** Supersedes the requests made for another changeset than the one now pending. */
  async function settle(executor: Executor, projectId: string, changeset: Changeset) {
    await closeApprovalRequests(executor, projectId, {
      status: 'superseded',
      at: clock.now().toISOString(),
      by: null,
      ...(!isEmpty(changeset) && { keepHash: changeset.hash }),
    });
  }

  return {
    /** Asks the admins to approve the pending changes; 400 when there are none, 409 when approved. */
    async request(
      ctx: RequestContext,
      projectId: string,
      input: { note?: string },
    ): Promise<ApprovalRequest> {
      authorize(ctx, 'approvalRequests.create');
      await projects.require(ctx, projectId);
      return writer.writeListings(projectId, async (trx) => {
        const { changeset, approval } = await diffs.pending(ctx, projectId, trx);
        if (isEmpty(changeset)) throw invalid('There are no pending changes to approve');
        if (approval.approved) {
          throw new AppError('CONFLICT', 'An admin has approved these changes already: they can be pushed');
        }
        await settle(trx, projectId, changeset);
        const note = input.note?.trim() || null;
        const row = {
          id: newId('areq'),
          organization_id: ctx.organizationId,
          project_id: projectId,
          diff_hash: changeset.hash,
          requested_by: actorOf(ctx).memberId,
          note,
          status: 'open',
          created_at: clock.now().toISOString(),
          closed_at: null,
          closed_by: null,
        };
        await insertApprovalRequest(trx, row);
        await audit.record(
          trx,
          ctx,
          'approvalRequests.create',
          { type: 'approvalRequest', id: row.id, projectId },
          { hash: changeset.hash, note },
        );
        await outbox.emit(trx, ctx.organizationId, 'approval.requested', {
          projectId,
          requestId: row.id,
          hash: changeset.hash,
          changeCount: changeset.changeCount,
          changes: changesOf(changeset),
          requestedBy: ctx.principal.memberId,
          note,
        });
        const [created] = (await openApprovalRequests(trx, projectId)).filter((r) => r.id === row.id);
        return requestOf(created!, changeset);
      });
    },

    /** The project's open requests, oldest first; those a new change superseded are closed first. */
    async list(ctx: RequestContext, projectId: string): Promise<ApprovalRequest[]> {
      authorize(ctx, 'approvalRequests.list');
      await projects.require(ctx, projectId);
      const { changeset } = await diffs.pending(ctx, projectId);
      await settle(db, projectId, changeset);
      return (await openApprovalRequests(db, projectId))
        .filter((row) => row.diff_hash === changeset.hash)
        .map((row) => requestOf(row, changeset));
    },
  };
}

export type ApprovalRequests = ReturnType<typeof createApprovalRequests>;
