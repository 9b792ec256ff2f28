/**
 * The workers of an instance (design.md §11): they run the queued jobs — background operations,
 * webhook deliveries, drift checks — and, every so often, find operations whose instance died,
 * queue the drift checks that are due, run the schedules that are due and collect unused media files. `appmeta serve` starts them beside HTTP; `appmeta
 * worker` starts them alone.
 */
import type { Logger } from 'pino';
import type { Services } from './services.js';

/** How often lapsed operation leases are looked for (a lease lapses 60 s after its last renewal). */
const RECOVER_EVERY_MS = 10_000;
/** How often due drift checks are queued (a changed interval takes effect within this). */
const DRIFT_SCHEDULE_EVERY_MS = 60_000;
/** How often due schedules are looked for: well inside the minute a schedule is accurate to. */
const SCHEDULE_TICK_MS = 5_000;
/** How often unused media files are collected (each run is bounded; every instance may run it). */
const MEDIA_COLLECT_EVERY_MS = 15 * 60_000;

export interface Worker {
  stop(): Promise<void>;
}

export async function startWorker(services: Services, log: Logger): Promise<Worker> {
  const workerLog = log.child({ component: 'worker' });
  await services.queue.work(
    {
      'operation.run': (data) => services.background.runJob(data.operationId!, workerLog),
      'webhook.deliver': (data) => services.webhooks.attempt(data.deliveryId!),
      'drift.check': async (data) => void (await services.drift.check(data.projectId!, workerLog)),
    },
    workerLog,
    services.metrics,
  );
  const every = (ms: number, task: () => Promise<unknown>, what: string) => {
    const timer = setInterval(() => {
      task().catch((error: unknown) => workerLog.error({ err: error }, `${what} failed`));
    }, ms);
    timer.unref();
    return timer;
  };
  const timers = [
    every(RECOVER_EVERY_MS, () => services.background.recoverExpired(workerLog), 'recovering operations'),
    every(SCHEDULE_TICK_MS, () => services.scheduleRunner.tick(workerLog), 'running schedules'),
    every(DRIFT_SCHEDULE_EVERY_MS, () => services.drift.schedule(), 'scheduling drift checks'),
    every(
      MEDIA_COLLECT_EVERY_MS,
      async () => {
        const report = await services.mediaCollection.collect();
        if (report.deletedBlobs + report.releasedHolds + report.deletedSpoolFiles > 0)
          workerLog.info({ report }, 'unused media collected');
      },
      'collecting media',
    ),
  ];
  // Right away too: operations of an instance that died before this one started.
  void services.background.recoverExpired(workerLog).catch(() => undefined);
  workerLog.info({ queue: services.queue.kind }, 'workers started');
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await services.queue.close();
    },
  };
}
