import { StoreError } from '../store-connector.js';

/**
 * Maps a Google API error ({error:{code, message, status, errors:[{reason}]}}) or an OAuth token
 * error ({error, error_description}) to a StoreError (stores.md §6).
 */
export function playError(status: number, body: string): StoreError {
  let code = `HTTP_${status}`;
  let message = `Google Play answered ${status}`;
  try {
    const parsed = JSON.parse(body) as {
      error?: string | { message?: string; status?: string; errors?: { reason?: string }[] };
      error_description?: string;
    };
    if (typeof parsed.error === 'string') {
      code = parsed.error;
      message = parsed.error_description ?? parsed.error;
    } else if (parsed.error) {
      code = parsed.error.errors?.[0]?.reason ?? parsed.error.status ?? code;
      message = parsed.error.message ?? message;
    }
  } catch {
    // not JSON: keep the status
  }
  return new StoreError('playstore', code, message, status, status === 429 || status >= 500);
}
