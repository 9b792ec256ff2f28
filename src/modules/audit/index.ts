export {
  actorOf,
  createAuditLog,
  operatorActor,
  type AuditActor,
  type AuditEntry,
  type AuditLog,
  type AuditTarget,
} from './audit.js';
