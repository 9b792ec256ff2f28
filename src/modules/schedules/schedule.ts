/** A scheduled change (design.md §20) as the API shows it, and what its row keeps. */
import type { SchedulesTable } from '../../db/tables.js';
import { formatInZone } from '../../shared/time-zones.js';
import type { ReleaseAction } from '../releases/index.js';

export const SCHEDULE_STATUSES = [
  'scheduled',
  'running',
  'live',
  'reverting',
  'completed',
  'held',
  'failed',
  'cancelled',
] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** States a schedule does not leave. */
export const FINAL: readonly ScheduleStatus[] = ['completed', 'held', 'failed', 'cancelled'];

/** One field a campaign replaced: pushed as `after`, put back as `before` at its revert time. */
export interface RevertEntry {
  store: string;
  locale: string;
  field: string;
  before: string | null;
  after: string | null;
}

/** What a push schedule will push, as people read it on the calendar. */
export interface ScheduleSummary {
  changeCount: number;
  mediaChangeCount: number;
  releaseNoteChangeCount: number;
  productChangeCount: number;
  detailChangeCount: number;
  /** The first listing texts it changes (at most SUMMARY_FIELDS). */
  fields: { store: string; locale: string; field: string; new: string | null }[];
}

export interface Schedule {
  id: string;
  projectId: string;
  kind: 'push' | 'release';
  status: ScheduleStatus;
  /** UTC. */
  at: string;
  revertAt: string | null;
  /** The zone it was entered in; `atLocal`/`revertAtLocal` are its wall clock there. */
  timeZone: string | null;
  atLocal: string | null;
  revertAtLocal: string | null;
  note: string | null;
  hash: string | null;
  release: ReleaseAction | null;
  summary: ScheduleSummary | null;
  createdBy: { memberId: string | null; operator: string | null };
  operationId: string | null;
  revertOperationId: string | null;
  /** Why it was held or failed. */
  reason: string | null;
  outcome: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function scheduleOf(row: SchedulesTable): Schedule {
  const local = (at: string | null) =>
    at === null || row.time_zone === null ? null : formatInZone(at, row.time_zone);
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind as Schedule['kind'],
    status: row.status as ScheduleStatus,
    at: row.at,
    revertAt: row.revert_at,
    timeZone: row.time_zone,
    atLocal: local(row.at),
    revertAtLocal: local(row.revert_at),
    note: row.note,
    hash: row.hash,
    release: json<ReleaseAction>(row.release),
    summary: json<ScheduleSummary>(row.summary),
    createdBy: { memberId: row.actor_member_id, operator: row.actor_operator },
    operationId: row.operation_id,
    revertOperationId: row.revert_operation_id,
    reason: row.reason,
    outcome: json<Record<string, unknown>>(row.outcome),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
