/** Events (design.md §11): what happened in an organization, for webhooks and the live stream. */

export const EVENT_TYPES = [
  'listing.updated',
  'sync.completed',
  'sync.conflict',
  'push.completed',
  'push.failed',
  'approval.requested',
  'approval.granted',
  'member.joined',
  'member.removed',
  'drift.detected',
  'operation.progress',
  // Scheduled changes (design.md §20): how each run at its time ended.
  'schedule.completed',
  'schedule.held',
  'schedule.failed',
  // Sent to the organization when an endpoint was disabled after failing for too long.
  'webhook.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType =>
  (EVENT_TYPES as readonly string[]).includes(value);

export interface AppEvent {
  id: string;
  /** The organization's event number, in commit order: the live stream's event id. */
  seq: number;
  organizationId: string;
  type: EventType;
  data: Record<string, unknown>;
  createdAt: string;
}

/** The JSON body a webhook receives, as the Standard Webhooks specification shapes it. */
export const webhookPayload = (event: Pick<AppEvent, 'id' | 'data' | 'createdAt'> & { type: string }) =>
  JSON.stringify({ id: event.id, type: event.type, timestamp: event.createdAt, data: event.data });
