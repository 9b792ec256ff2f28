/** Sync and push with the stores, one operation per project at a time, and the operations log. */
export { createBackgroundOperations, type BackgroundOperations } from './background-operations.js';
export { createOperationRunner, type OperationRunner } from './operation-runner.js';
export { createOperationsLog, type OperationsLog } from './operations-log.js';
export { createPushService, type PushService } from './push.service.js';
export { syncRoutes } from './sync.routes.js';
export { createSyncService, type SyncService } from './sync.service.js';
