import { StoreError } from '../store-connector.js';

interface AscError {
  status?: string;
  code?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

/**
 * Maps an App Store Connect error response ({errors:[{status, code, title, detail, source}]},
 * stores.md §6) to a StoreError naming the field when Apple points at one.
 */
export function ascError(status: number, body: string): StoreError {
  let errors: AscError[];
  try {
    errors = (JSON.parse(body) as { errors?: AscError[] }).errors ?? [];
  } catch {
    errors = [];
  }
  const first = errors[0];
  const code = first?.code ?? `HTTP_${status}`;
  // Apple may send several errors (a version refused for two reasons): each is said.
  const message =
    errors
      .map((e) => [e.title, e.detail].filter(Boolean).join(' - '))
      .filter(Boolean)
      .join('; ') || `App Store Connect answered ${status}`;
  const pointer = first?.source?.pointer;
  const field = pointer?.startsWith('/data/attributes/') ? pointer.slice('/data/attributes/'.length) : null;
  return new StoreError('appstore', code, message, status, status === 429 || status >= 500, field);
}
