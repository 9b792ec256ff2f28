export {
  actorOf,
  createAuditLog,
  operatorActor,
  type AuditActor,
  type AuditEntry,
  type AuditFilter,
  type AuditLog,
  type AuditTarget,
} from './audit.js';
export { auditCsv } from './audit-csv.js';
export { historyActor, type HistoryActor, type HistoryActorRow } from './history-actor.js';
