/**
 * Scheduled changes (design.md §20): members with push rights schedule an approved changeset (by
 * the diff hash they read) or a release control at a time; a campaign also names when its texts
 * go back. The schedule keeps its author's role and scope, as a background operation does; what
 * runs it at its time is schedule-runner.ts.
 */
import type { Executor } from '../../db/database.js';
import { AppError, invalidField, notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { authorize, storedScope, type RequestContext } from '../access/index.js';
import { actorOf, type AuditLog } from '../audit/index.js';
import { isEmpty, type Approvals, type Diffs } from '../listings/index.js';
import type { ProjectsService } from '../projects/index.js';
import { releaseActionOf, type ReleaseActionInput } from '../releases/index.js';
import { checkRevertable, requireChangesetInScope, summaryOf } from './campaign.js';
import { FINAL, scheduleOf, SCHEDULE_STATUSES, type Schedule } from './schedule.js';
import { instantOf, zoneOf } from './schedule-times.js';
import { schedulesRepository as repo } from './schedules.repository.js';

export interface ScheduleInput {
  at: string;
  timeZone?: string;
  hash?: string;
  release?: ReleaseActionInput;
  revertAt?: string;
  note?: string;
}

export interface ScheduleFilter {
  from?: string;
  to?: string;
  status?: string[];
}

const NOTE_MAX = 500;

export interface SchedulesServiceDeps {
  db: Executor;
  clock: Clock;
  audit: Pick<AuditLog, 'record'>;
  projects: Pick<ProjectsService, 'require'>;
  diffs: Pick<Diffs, 'pending'>;
  approvals: Pick<Approvals, 'assertPushAllowed'>;
}

export function createSchedulesService(deps: SchedulesServiceDeps) {
  const { db, clock, audit, projects } = deps;

  async function requireSchedule(ctx: RequestContext, projectId: string, scheduleId: string) {
    authorize(ctx, 'schedules.get');
    await projects.require(ctx, projectId);
    const row = await repo.find(db, projectId, scheduleId);
    if (row === undefined) throw notFound('Schedule');
    return row;
  }

  /** What a push schedule pushes: the pending changeset, which must be the one the caller read. */
  async function changesetToSchedule(ctx: RequestContext, projectId: string, hash: string, revert: boolean) {
    authorize(ctx, 'projects.push');
    const project = await projects.require(ctx, projectId);
    const pending = await deps.diffs.pending(ctx, projectId);
    const { changeset } = pending;
    if (isEmpty(changeset)) {
      throw new AppError('CONFLICT', 'Nothing is pending: edit the listings first, then schedule the diff');
    }
    if (hash !== changeset.hash) {
      throw new AppError(
        'CONFLICT',
        `The pending changes are no longer the ones you read (hash ${hash.slice(0, 12)}…, now ` +
          `${changeset.hash.slice(0, 12)}…): read the diff again and schedule its hash`,
      );
    }
    requireChangesetInScope(ctx, project, changeset);
    if (revert) checkRevertable(changeset);
    // Approval rules apply: without one yet, the admins are asked now (an approval request) and the
    // schedule holds at its time unless this exact changeset is approved by then.
    let approval = pending.approval;
    try {
      await deps.approvals.assertPushAllowed(ctx, projectId, pending);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'APPROVAL_REQUIRED') throw error;
      approval = { ...approval, approved: false };
    }
    return { changeset, approval };
  }

  return {
    async create(ctx: RequestContext, projectId: string, input: ScheduleInput) {
      authorize(ctx, 'schedules.create');
      const project = await projects.require(ctx, projectId);
      const now = clock.now();
      const zone = zoneOf(input.timeZone);
      const at = instantOf('at', input.at, zone, now, 'now');
      const revertAt =
        input.revertAt === undefined ? null : instantOf('revertAt', input.revertAt, zone, at, 'at');
      if ((input.hash === undefined) === (input.release === undefined)) {
        throw invalidField(
          'hash',
          'give either hash (the diff to push) or release (a release control), not both',
        );
      }
      if (input.note !== undefined && [...input.note].length > NOTE_MAX) {
        throw invalidField('note', `is at most ${NOTE_MAX} characters`);
      }
      let push: Awaited<ReturnType<typeof changesetToSchedule>> | null = null;
      let release = null;
      if (input.hash !== undefined) {
        push = await changesetToSchedule(ctx, projectId, input.hash, revertAt !== null);
      } else {
        authorize(ctx, 'releaseControls.apply');
        if (revertAt !== null)
          throw invalidField('revertAt', 'a release control is not reverted; schedule its opposite');
        release = releaseActionOf(project, input.release!);
      }
      const actor = actorOf(ctx);
      const stamp = now.toISOString();
      const row = {
        id: newId('sch'),
        organization_id: ctx.organizationId,
        project_id: projectId,
        kind: push === null ? 'release' : 'push',
        status: 'scheduled',
        hash: push?.changeset.hash ?? null,
        release: release === null ? null : JSON.stringify(release),
        at: at.toISOString(),
        revert_at: revertAt?.toISOString() ?? null,
        time_zone: zone,
        note: input.note ?? null,
        actor_member_id: actor.memberId,
        actor_operator: actor.operator,
        actor_role: ctx.principal.role,
        actor_access: ctx.principal.access === undefined ? null : storedScope(ctx.principal.access),
        lease_expires_at: null,
        operation_id: null,
        revert_operation_id: null,
        revert_plan: null,
        summary: push === null ? null : JSON.stringify(summaryOf(push.changeset)),
        reason: null,
        outcome: null,
        created_at: stamp,
        updated_at: stamp,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await audit.record(
          trx,
          ctx,
          'schedules.create',
          { type: 'schedule', id: row.id, projectId },
          {
            kind: row.kind,
            at: row.at,
            ...(row.revert_at !== null && { revertAt: row.revert_at }),
            ...(row.hash !== null && { hash: row.hash }),
            ...(release !== null && { release }),
          },
        );
      });
      ctx.log.info({ projectId, scheduleId: row.id, at: row.at, kind: row.kind }, 'schedule created');
      return {
        schedule: scheduleOf(row),
        approval:
          push === null ? null : { required: push.approval.required, approved: push.approval.approved },
      };
    },

    async list(
      ctx: RequestContext,
      projectId: string,
      filter: ScheduleFilter,
      page: { limit: number; offset: number },
    ): Promise<{ schedules: Schedule[]; total: number }> {
      authorize(ctx, 'schedules.list');
      await projects.require(ctx, projectId);
      const time = (field: string, text: string | undefined) => {
        if (text === undefined) return undefined;
        const ms = Date.parse(text);
        if (Number.isNaN(ms))
          throw invalidField(field, 'must be a time with an offset, e.g. 2027-03-01T00:00:00Z');
        return new Date(ms).toISOString();
      };
      for (const [index, status] of (filter.status ?? []).entries()) {
        if (!(SCHEDULE_STATUSES as readonly string[]).includes(status)) {
          throw invalidField(`status[${index}]`, `must be one of ${SCHEDULE_STATUSES.join(', ')}`);
        }
      }
      const { rows, total } = await repo.list(
        db,
        projectId,
        {
          ...(filter.from !== undefined && { from: time('from', filter.from) }),
          ...(filter.to !== undefined && { to: time('to', filter.to) }),
          ...(filter.status !== undefined && filter.status.length > 0 && { statuses: filter.status }),
        },
        page,
      );
      return { schedules: rows.map(scheduleOf), total };
    },

    async get(ctx: RequestContext, projectId: string, scheduleId: string): Promise<Schedule> {
      return scheduleOf(await requireSchedule(ctx, projectId, scheduleId));
    },

    /**
     * Cancels a schedule that has not run, or a campaign's revert that has not: 409 once it is
     * running (its push is an operation: cancel that) or has ended.
     */
    async cancel(ctx: RequestContext, projectId: string, scheduleId: string): Promise<Schedule> {
      const row = await requireSchedule(ctx, projectId, scheduleId);
      authorize(ctx, 'schedules.cancel');
      const now = clock.now().toISOString();
      if ((FINAL as readonly string[]).includes(row.status) || !['scheduled', 'live'].includes(row.status)) {
        throw new AppError(
          'CONFLICT',
          row.status === 'running' || row.status === 'reverting'
            ? `The schedule is running (operation ${row.operation_id ?? row.revert_operation_id ?? 'starting'}); cancel that operation instead`
            : `The schedule has already ended (${row.status})`,
        );
      }
      await db.transaction().execute(async (trx) => {
        const moved = await repo.transition(
          trx,
          row.id,
          [row.status],
          {
            status: row.status === 'live' ? 'completed' : 'cancelled',
            reason: row.status === 'live' ? 'its revert was cancelled' : 'cancelled',
          },
          now,
        );
        if (!moved) throw new AppError('CONFLICT', 'The schedule started meanwhile; read it again');
        await audit.record(
          trx,
          ctx,
          'schedules.cancel',
          { type: 'schedule', id: row.id, projectId },
          {
            was: row.status,
          },
        );
      });
      ctx.log.info({ projectId, scheduleId }, 'schedule cancelled');
      return scheduleOf((await repo.findById(db, row.id))!);
    },
  };
}

export type SchedulesService = ReturnType<typeof createSchedulesService>;
