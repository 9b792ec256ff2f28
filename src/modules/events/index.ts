/** Events: the transactional outbox and the live stream that reads it. */
export * from '../../shared/events.js';
export { createEventStream, type EventStream } from './event-stream.js';
export { eventsRoutes } from './events.routes.js';
export { createOutbox, type EventFanOut, type Outbox } from './outbox.js';
