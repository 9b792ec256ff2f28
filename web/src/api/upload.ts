/** A media upload with progress: one file as the raw body of the slot's route (design.md §12). */
import { ApiError } from './client';

/** The route of a slot's files. */
export const slotUrl = (projectId: string, store: string, locale: string, slotType: string) =>
  `/api/v1/projects/${projectId}/media/${store}/${encodeURIComponent(locale)}/${slotType}`;

/** Sends one file as the raw body, reporting progress (fetch cannot report upload progress). */
export function uploadFile(url: string, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${url}${url.includes('?') ? '&' : '?'}fileName=${encodeURIComponent(file.name)}`);
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.setRequestHeader('X-Appmeta-CSRF', '1');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status < 300) return resolve();
      try {
        const body = JSON.parse(request.responseText) as {
          error: { code: string; message: string; details?: { field: string; message: string }[] };
        };
        reject(
          new ApiError(
            request.status,
            body.error.code,
            `${file.name}: ${body.error.message}`,
            body.error.details,
          ),
        );
      } catch {
        reject(
          new ApiError(request.status, 'UNKNOWN', `${file.name}: the server answered ${request.status}`),
        );
      }
    };
    request.onerror = () =>
      reject(new ApiError(0, 'NETWORK', `${file.name}: the upload did not reach the server`));
    request.send(file);
  });
}
