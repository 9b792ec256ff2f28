/** Scheduled changes (design.md §20): pushes and release controls at a time, campaigns that revert. */
export { createScheduleRunner, type ScheduleRunner } from './schedule-runner.js';
export type { Schedule, ScheduleStatus } from './schedule.js';
export { scheduleRoutes } from './schedules.routes.js';
export { createSchedulesService, type SchedulesService } from './schedules.service.js';
