/** Approvals (design.md §6): an admin approves the pending changeset as it stands, by its hash. */
import { AppError, invalid } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { authorize, requireLocalesInScope, scopeOf, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { Outbox } from '../events/index.js';
import type { ProjectsService } from '../projects/index.js';
import { changesetLocales, isEmpty } from './changeset.js';
import type { Diffs, Pending } from './listing-diff.js';
import type { ListingWriter } from './listing-writer.js';
import { listingsRepository as repo } from './listings.repository.js';
import { closeApprovalRequests } from './approval-requests.repository.js';

export interface ApprovalsDeps {
  clock: Clock;
  audit: Pick<AuditLog, 'record'>;
  projects: Pick<ProjectsService, 'require'>;
  diffs: Pick<Diffs, 'pending'>;
  writer: Pick<ListingWriter, 'writeListings'>;
  outbox: Pick<Outbox, 'emit'>;
}

export function createApprovals({ clock, audit, projects, diffs, writer, outbox }: ApprovalsDeps) {
  /** A push refused for want of an approval asks the admins for one (approval.requested). */
  async function requestApproval(ctx: RequestContext, projectId: string, pending: Pending) {
    await writer.writeListings(projectId, (trx) =>
      outbox.emit(trx, ctx.organizationId, 'approval.requested', {
        projectId,
        hash: pending.changeset.hash,
        changeCount: pending.changeset.changeCount,
        requestedBy: ctx.principal.memberId,
      }),
    );
  }

  return {
    /**
     * Admin approval of the current pending changeset; any later edit changes its hash and voids
     * it. With `hash` (the diff's, as the approver read it), 409 CONFLICT unless the changeset is
     * still exactly that one: nobody approves changes they did not see.
     */
    async approve(ctx: RequestContext, projectId: string, input: { hash?: string } = {}) {
      // Admins approve; so does a member whose scope lets them, for changes all inside it (§16).
      const byScope = ctx.principal.role === 'member' && scopeOf(ctx.principal).approve;
      if (!byScope) authorize(ctx, 'listings.approve');
      await projects.require(ctx, projectId);
      return writer.writeListings(projectId, async (trx) => {
        const { changeset } = await diffs.pending(ctx, projectId, trx);
        if (isEmpty(changeset)) throw invalid('There are no pending changes to approve');
        if (byScope)
          requireLocalesInScope(ctx, changesetLocales(changeset, ['appstore', 'playstore'], undefined));
        if (input.hash !== undefined && input.hash !== changeset.hash) {
          throw new AppError(
            'CONFLICT',
            `The pending changes are no longer the ones reviewed (hash ${input.hash.slice(0, 12)}…, now ` +
              `${changeset.hash.slice(0, 12)}…): read the diff again, then approve its hash`,
          );
        }
        const approval = {
          id: newId('appr'),
          organization_id: ctx.organizationId,
          project_id: projectId,
          diff_hash: changeset.hash,
          approved_by: ctx.principal.memberId,
          created_at: clock.now().toISOString(),
        };
        await repo.insertApproval(trx, approval);
        await closeApprovalRequests(trx, projectId, {
          status: 'approved',
          at: approval.created_at,
          by: approval.approved_by,
        });
        await audit.record(
          trx,
          ctx,
          'listings.approve',
          { type: 'project', id: projectId },
          { hash: changeset.hash, changeCount: changeset.changeCount },
        );
        await outbox.emit(trx, ctx.organizationId, 'approval.granted', {
          projectId,
          hash: changeset.hash,
          changeCount: changeset.changeCount,
          approvedBy: ctx.principal.memberId,
        });
        return {
          approvalId: approval.id,
          hash: changeset.hash,
          changeCount: changeset.changeCount,
          approvedBy: approval.approved_by,
          approvedAt: approval.created_at,
        };
      });
    },

    /**
     * The push gate of design.md §6: with `requireApproval` on, a non-admin may push only a
     * changeset that an admin approved as it stands. Throws 403 APPROVAL_REQUIRED otherwise.
     */
    async assertPushAllowed(ctx: RequestContext, projectId: string, pending: Pending): Promise<void> {
      const { changeset, approval } = pending;
      if (ctx.principal.role === 'admin') return;
      if (approval.required && !isEmpty(changeset) && !approval.approved) {
        await requestApproval(ctx, projectId, pending);
        throw new AppError(
          'APPROVAL_REQUIRED',
          'This organization requires an admin to approve pending changes before a push (POST /projects/:projectId/approvals)',
        );
      }
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
