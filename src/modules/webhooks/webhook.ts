/** Webhook endpoints (design.md §11): what one is, and the checks of what an admin may set. */
import net from 'node:net';
import { invalidField } from '../../errors.js';
import { isPrivateAddress } from '../../shared/network-guard.js';
import { textProblem } from '../../shared/text.js';
import { EVENT_TYPES, isEventType, type EventType } from '../events/index.js';
import type { Attempt } from './sender.js';

export interface Webhook {
  id: string;
  url: string;
  description: string;
  /** The event types sent; empty = all. */
  events: EventType[];
  enabled: boolean;
  /** Why the endpoint was disabled automatically, when it was. */
  disabledReason: string | null;
  failingSince: string | null;
  /** Until when deliveries also carry the signature of the previous secret. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Delivery {
  id: string;
  webhookId: string;
  /** The `webhook-id` header of every attempt. */
  eventId: string;
  eventType: string;
  status: 'pending' | 'sending' | 'succeeded' | 'failed';
  attemptCount: number;
  attempts: Attempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

export const URL_MAX = 2000;
export const DESCRIPTION_MAX = 500;

/** A URL an endpoint may have: http(s), no credentials, no fragment; not private unless allowed. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidField('url', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidField('url', 'must be http(s)');
  if (url.username !== '' || url.password !== '') {
    throw invalidField('url', 'must not carry a user name or password; deliveries are signed instead');
  }
  if (url.hash !== '') throw invalidField('url', 'must not have a #fragment');
  if (raw.length > URL_MAX) throw invalidField('url', `must be at most ${URL_MAX} characters`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || (net.isIP(host) !== 0 && isPrivateAddress(host)))) {
    throw invalidField(
      'url',
      `${host} is a private, loopback or link-local address; webhooks go to public addresses (WEBHOOK_ALLOW_PRIVATE=true allows others)`,
    );
  }
  return url.toString();
}

export function checkEvents(events: string[]): EventType[] {
  events.forEach((type, index) => {
    if (!isEventType(type)) {
      throw invalidField(
        `events[${index}]`,
        `"${type}" is not an event type; one of ${EVENT_TYPES.join(', ')}`,
      );
    }
  });
  return [...new Set(events)] as EventType[];
}

export function checkDescription(raw: string): string {
  const description = raw.trim();
  const problem = textProblem(description, { singleLine: true });
  if (problem !== null) throw invalidField('description', problem);
  if ([...description].length > DESCRIPTION_MAX) {
    throw invalidField('description', `must be at most ${DESCRIPTION_MAX} characters`);
  }
  return description;
}

/** Whether an endpoint wants events of this type. */
export const wants = (events: EventType[], type: string) =>
  events.length === 0 || (events as string[]).includes(type);
