/**
 * Runs schedules at their time (design.md §20). Every instance ticks; a due schedule is claimed
 * with a lease by compare-and-set, so one instance acts, and a claim whose instance died lapses
 * and is taken again. At its time a push schedule checks that the pending changes are still the
 * ones scheduled (hash), approved where approval is required, and that the store has not changed
 * a field it pushes (drift); any of these holds it, with the reason. Otherwise it queues a
 * background push of exactly that changeset — the operation's own lease then carries it through
 * a restart — and the schedule settles when the operation ends. A campaign's revert puts its
 * texts back in the working copy and pushes exactly them, in one transaction with the queueing.
 */
import type { Logger } from 'pino';
import type { Executor } from '../../db/database.js';
import type { SchedulesTable } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import {
  authorize,
  isRole,
  parseScope,
  recordedContext,
  type AccessScope,
  type RequestContext,
  type Role,
} from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { DriftedField } from '../drift/index.js';
import type { Outbox } from '../events/index.js';
import type { Changeset, Diffs, ListingWriter } from '../listings/index.js';
import type { ProjectsService } from '../projects/index.js';
import type { ReleaseAction, ReleaseActionInput } from '../releases/index.js';
import { STORE_LABEL, type Store } from '../../shared/stores.js';
import { requireChangesetInScope, revertChangeset, revertPlanOf } from './campaign.js';
import type { RevertEntry } from './schedule.js';
import { schedulesRepository as repo } from './schedules.repository.js';

/** How long a claim lasts before another instance may take the schedule over. */
export const CLAIM_MS = 120_000;

export interface QueuedPush {
  operationId: string;
  insert(trx: Executor): Promise<void>;
  wake(): void;
}

export interface ScheduleRunnerDeps {
  db: Executor;
  clock: Clock;
  outbox: Pick<Outbox, 'emit'>;
  audit: Pick<AuditLog, 'recordAs'>;
  projects: Pick<ProjectsService, 'require'>;
  diffs: Pick<Diffs, 'pending'>;
  writer: Pick<ListingWriter, 'applyAll'>;
  /** The store's view now: the drift check, answering what differs from the base. */
  driftCheck(projectId: string, log: Logger): Promise<DriftedField[]>;
  queuedPush(ctx: RequestContext, projectId: string, changeset: Changeset): Promise<QueuedPush>;
  applyRelease(ctx: RequestContext, projectId: string, input: ReleaseActionInput): Promise<object>;
  /** The author's role and scope now (null: no longer a member): a schedule acts with today's rights. */
  memberOf(organizationId: string, memberId: string): Promise<{ role: Role; access: AccessScope } | null>;
}

/** The claim was lost to another instance (or a cancel) before the operation was linked. */
class ClaimLost extends Error {}

/** Why a schedule does not push: it ends `held` with this reason. */
class Held extends Error {}

const fieldKey = (store: string, locale: string, field: string) => `${store}\u0000${locale}\u0000${field}`;

/** The fields a changeset writes that the store has changed since (drift), by name. */
function driftedFields(changeset: Changeset, drift: DriftedField[]): string[] {
  const named: string[] = [];
  for (const d of drift) {
    if (d.field === '*') continue;
    const store = d.store;
    const [, productId, field] = d.field.split('.');
    const hit = d.field.startsWith('details.')
      ? changeset.details[store]?.[d.field.slice('details.'.length)] !== undefined
      : d.field.startsWith('products.')
        ? changeset.products[store]?.[productId!]?.[d.locale]?.[field!] !== undefined
        : changeset.stores[store]?.[d.locale]?.[d.field] !== undefined;
    if (hit) named.push(`${STORE_LABEL[store]} ${d.locale === '' ? '' : `${d.locale} `}${d.field}`);
  }
  return named;
}

export function createScheduleRunner(deps: ScheduleRunnerDeps) {
  const { db, clock } = deps;
  const nowIso = () => clock.now().toISOString();

  /** The author's context, with the role and scope they have now. */
  async function contextOf(row: SchedulesTable, log: Logger): Promise<RequestContext> {
    let role: Role = isRole(row.actor_role) ? row.actor_role : 'viewer';
    let access: AccessScope | undefined =
      row.actor_access === null ? undefined : parseScope(row.actor_access);
    if (row.actor_member_id !== null) {
      const member = await deps.memberOf(row.organization_id, row.actor_member_id);
      if (member === null) {
        throw new AppError(
          'FORBIDDEN',
          'The member who scheduled it is no longer a member of the organization',
        );
      }
      ({ role, access } = member);
    }
    return recordedContext(
      {
        organizationId: row.organization_id,
        memberId: row.actor_member_id,
        operator: row.actor_operator,
        role,
        ...(access !== undefined && { access }),
      },
      row.id,
      log.child({ scheduleId: row.id }),
    );
  }

  /** Ends a claimed schedule, with its event and its author's audit entry, if the claim is still ours. */
  async function end(
    row: SchedulesTable,
    from: string,
    claim: string | undefined,
    status: 'completed' | 'held' | 'failed' | 'live',
    details: {
      reason?: string;
      outcome?: object;
      phase: 'push' | 'revert' | 'release';
      operationId?: string | null;
    },
  ): Promise<boolean> {
    const now = nowIso();
    return db.transaction().execute(async (trx) => {
      const moved = await repo.transition(
        trx,
        row.id,
        [from],
        {
          status,
          lease_expires_at: null,
          ...(details.reason !== undefined && { reason: details.reason }),
          ...(details.outcome !== undefined && { outcome: JSON.stringify(details.outcome) }),
        },
        now,
        claim,
      );
      if (!moved) return false;
      const type =
        status === 'held' ? 'schedule.held' : status === 'failed' ? 'schedule.failed' : 'schedule.completed';
      await deps.outbox.emit(trx, row.organization_id, type, {
        scheduleId: row.id,
        projectId: row.project_id,
        phase: details.phase,
        status,
        at: row.at,
        ...(row.revert_at !== null && { revertAt: row.revert_at }),
        ...(details.operationId != null && { operationId: details.operationId }),
        ...(details.reason !== undefined && { reason: details.reason }),
      });
      await deps.audit.recordAs(
        trx,
        row.organization_id,
        { memberId: row.actor_member_id, keyId: null, operator: row.actor_operator },
        'schedules.run',
        { type: 'schedule', id: row.id, projectId: row.project_id },
        { phase: details.phase, status, ...(details.reason !== undefined && { reason: details.reason }) },
      );
      return true;
    });
  }

  /** A push schedule at its time: the checks, then its push queued and linked. */
  async function startPush(row: SchedulesTable, claim: string, log: Logger): Promise<void> {
    const ctx = await contextOf(row, log);
    authorize(ctx, 'projects.push');
    const pending = await deps.diffs.pending(ctx, row.project_id);
    const { changeset } = pending;
    if (changeset.hash !== row.hash) {
      throw new Held(
        `The pending changes are no longer the ones scheduled (hash ${row.hash!.slice(0, 12)}…, now ` +
          `${changeset.hash.slice(0, 12)}…): they were edited, synced or pushed since. Schedule the new diff.`,
      );
    }
    if (ctx.principal.role !== 'admin' && pending.approval.required && !pending.approval.approved) {
      throw new Held('An admin has not approved this changeset; approval is required before it is pushed');
    }
    requireChangesetInScope(ctx, await deps.projects.require(ctx, row.project_id), changeset);
    const drifted = driftedFields(changeset, await deps.driftCheck(row.project_id, log));
    if (drifted.length > 0) {
      throw new Held(
        `The store changed fields this schedule pushes: ${drifted.join(', ')}. Sync to see the store's values, then schedule again.`,
      );
    }
    const plan = row.revert_at === null ? null : revertPlanOf(changeset);
    const queued = await deps.queuedPush(ctx, row.project_id, changeset);
    await db.transaction().execute(async (trx) => {
      const linked = await repo.linkOperation(
        trx,
        row.id,
        { status: 'running', leaseUntil: claim },
        queued.operationId,
        plan === null ? {} : { revert_plan: JSON.stringify(plan) },
        nowIso(),
      );
      if (!linked) throw new ClaimLost();
      await queued.insert(trx);
    });
    queued.wake();
    ctx.log.info({ operationId: queued.operationId }, 'scheduled push queued');
  }

  /** A campaign at its revert time: its fields back in the working copy, and exactly them pushed. */
  async function startRevert(row: SchedulesTable, claim: string, log: Logger): Promise<void> {
    const ctx = await contextOf(row, log);
    authorize(ctx, 'projects.push');
    const plan = JSON.parse(row.revert_plan ?? '[]') as RevertEntry[];
    const project = await deps.projects.require(ctx, row.project_id);
    const pending = await deps.diffs.pending(ctx, row.project_id);
    const edited = plan.filter(
      (e) => pending.changeset.stores[e.store as Store]?.[e.locale]?.[e.field] !== undefined,
    );
    if (edited.length > 0) {
      throw new Held(
        `Texts the campaign would put back were edited since it went live: ${edited
          .map((e) => `${e.store} ${e.locale} ${e.field}`)
          .join(', ')}. Nothing was reverted; put them back by hand.`,
      );
    }
    const asPushed = revertChangeset(
      plan.map((e) => ({ ...e, before: e.after })),
      '',
    );
    const drifted = driftedFields(asPushed, await deps.driftCheck(row.project_id, log));
    if (drifted.length > 0) {
      throw new Held(
        `The store changed fields the campaign would put back: ${drifted.join(', ')}. Nothing was reverted.`,
      );
    }
    const changeset = revertChangeset(plan, `${row.hash ?? ''}:revert`);
    const queued = await deps.queuedPush(ctx, row.project_id, changeset);
    const byListing = new Map<
      string,
      { store: Store; locale: string; edits: Record<string, string | null> }
    >();
    for (const entry of plan) {
      const key = fieldKey(entry.store, entry.locale, '');
      const listing = byListing.get(key) ?? { store: entry.store as Store, locale: entry.locale, edits: {} };
      listing.edits[entry.field] = entry.before;
      byListing.set(key, listing);
    }
    await deps.writer.applyAll(ctx, project, [...byListing.values()], 'revert', undefined, async (trx) => {
      const linked = await repo.linkOperation(
        trx,
        row.id,
        { status: 'reverting', leaseUntil: claim },
        queued.operationId,
        {},
        nowIso(),
      );
      if (!linked) throw new ClaimLost();
      await queued.insert(trx);
    });
    queued.wake();
    ctx.log.info({ operationId: queued.operationId, fields: plan.length }, 'campaign revert queued');
  }

  /** A release control at its time: applied at once, the schedule ends with the store's answer. */
  async function runRelease(row: SchedulesTable, claim: string, log: Logger): Promise<void> {
    const ctx = await contextOf(row, log);
    const action = JSON.parse(row.release!) as ReleaseAction;
    const result = await deps.applyRelease(ctx, row.project_id, action);
    await end(row, 'running', claim, 'completed', { phase: 'release', outcome: result });
  }

  /** Takes one due schedule and moves it on; a refusal holds or fails it with its reason. */
  async function runDue(row: SchedulesTable, log: Logger): Promise<void> {
    const to = row.status === 'live' || row.status === 'reverting' ? 'reverting' : 'running';
    const claim = new Date(clock.now().getTime() + CLAIM_MS).toISOString();
    if (!(await repo.claim(db, row, to, claim, nowIso()))) return;
    const phase = row.kind === 'release' ? 'release' : to === 'running' ? 'push' : 'revert';
    const claimed = { ...row, status: to, lease_expires_at: claim };
    log.info({ scheduleId: row.id, phase }, 'schedule due');
    try {
      if (row.kind === 'release') await runRelease(claimed, claim, log);
      else if (to === 'running') await startPush(claimed, claim, log);
      else await startRevert(claimed, claim, log);
    } catch (error) {
      if (error instanceof ClaimLost) return;
      const reason = error instanceof Error ? error.message : String(error);
      const status = error instanceof Held ? 'held' : 'failed';
      if (!(error instanceof Held) && !(error instanceof AppError)) {
        log.error({ err: error, scheduleId: row.id }, 'schedule run failed');
      }
      const shown =
        error instanceof Held || error instanceof AppError
          ? reason
          : 'An internal error stopped it; see the service log';
      // A campaign whose revert is held or fails keeps what it pushed: it ends there.
      await end(claimed, to, claim, status, { phase, reason: shown });
      log.info({ scheduleId: row.id, status, reason: shown }, `schedule ${status}`);
    }
  }

  /** Schedules whose operation has ended take its outcome. */
  async function settle(log: Logger): Promise<number> {
    const rows = await repo.settled(db);
    for (const row of rows) {
      const phase = row.status === 'running' ? 'push' : 'revert';
      const operationId = phase === 'push' ? row.operation_id : row.revert_operation_id;
      const outcome =
        row.operation_outcome === null ? {} : (JSON.parse(row.operation_outcome) as Record<string, unknown>);
      const succeeded = row.operation_status === 'succeeded';
      const next = !succeeded ? 'failed' : phase === 'push' && row.revert_at !== null ? 'live' : 'completed';
      const reason = succeeded
        ? undefined
        : typeof outcome.error === 'string'
          ? outcome.error
          : `The push ended ${row.operation_status}: see operation ${operationId} for what was not accepted`;
      const ended = await end(row, row.status, undefined, next, {
        phase,
        operationId,
        outcome: { operationStatus: row.operation_status },
        ...(reason !== undefined && { reason }),
      });
      if (ended) log.info({ scheduleId: row.id, status: next, operationId }, `schedule ${next}`);
    }
    return rows.length;
  }

  return {
    /**
     * One tick of an instance: settles what finished, then runs what is due by the clock. Every
     * instance may tick at once; each schedule moves once.
     */
    async tick(log: Logger): Promise<void> {
      await settle(log);
      for (const row of await repo.due(db, nowIso())) await runDue(row, log);
    },
    settle,
  };
}

export type ScheduleRunner = ReturnType<typeof createScheduleRunner>;
