export {
  actorOf,
  createAuditLog,
  OPERATOR,
  type AuditActor,
  type AuditEntry,
  type AuditLog,
  type AuditTarget,
} from './audit.js';
