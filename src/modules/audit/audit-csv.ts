/** The audit log as CSV (RFC 4180): a header row, then one row per entry, CRLF line ends. */
import type { AuditEntry } from './audit.js';

const COLUMNS = [
  'createdAt',
  'id',
  'action',
  'actorName',
  'actorMemberId',
  'actorKeyId',
  'actorOperator',
  'projectId',
  'projectName',
  'targetType',
  'targetId',
  'details',
] as const;

/** A field quoted when it holds a comma, a quote or a line break; quotes inside are doubled. */
export const csvField = (value: string | null): string =>
  value === null ? '' : /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;

const rowOf = (entry: AuditEntry): string[] => [
  entry.createdAt,
  entry.id,
  entry.action,
  entry.actor.name ?? '',
  entry.actor.memberId ?? '',
  entry.actor.keyId ?? '',
  entry.actor.operator ?? '',
  entry.project?.id ?? '',
  entry.project?.name ?? '',
  entry.target.type,
  entry.target.id,
  entry.details === null ? '' : JSON.stringify(entry.details),
];

/** The CSV text, line by line, of the entries as they are read. */
export async function* auditCsv(entries: AsyncIterable<AuditEntry>): AsyncGenerator<string> {
  yield `${COLUMNS.join(',')}\r\n`;
  for await (const entry of entries) yield `${rowOf(entry).map(csvField).join(',')}\r\n`;
}
