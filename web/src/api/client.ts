/**
 * The dashboard's API client, typed from the service's OpenAPI document (schema.d.ts, generated).
 * Every call sends the CSRF header the session cookie needs (design.md §10); answers are unwrapped
 * from the envelope, failures thrown as ApiError with the server's code and message.
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export const api = createClient<paths>({
  baseUrl: '',
  credentials: 'same-origin',
  headers: { 'X-Appmeta-CSRF': '1' },
});

export interface ErrorDetail {
  field: string;
  message: string;
  limit?: number;
  length?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

interface Envelope<T> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string; details?: ErrorDetail[] };
}

/** The `data` of a successful answer (of any of the route's success statuses); an ApiError otherwise. */
export async function unwrap<D extends Envelope<unknown>>(
  call: Promise<{ data?: D | undefined; error?: unknown; response: Response }>,
): Promise<NonNullable<D['data']>> {
  const { data, error, response } = await call;
  if (data?.success === true) return data.data as NonNullable<D['data']>;
  const failure = (error as Envelope<unknown> | undefined)?.error;
  throw new ApiError(
    response.status,
    failure?.code ?? 'UNKNOWN',
    failure?.message ?? `The server answered ${response.status}`,
    failure?.details ?? [],
  );
}

/**
 * The answer of a sync or push sent without `Prefer: respond-async`, which runs at once and never
 * answers a queued operation (design.md §11).
 */
export function synchronous<U extends object>(data: U): Exclude<U, { operation: unknown }> {
  if ('operation' in data) throw new ApiError(202, 'QUEUED', 'The operation was queued instead of run');
  return data as Exclude<U, { operation: unknown }>;
}
