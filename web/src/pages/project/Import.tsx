/** Importing a fastlane archive into a project. */
import { useMutation } from '@tanstack/react-query';
import type { ChangeEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { STORE_NAMES } from '../../listing-rules';
import { ErrorMessage } from '../../ui';

export function Import({ projectId, onDone }: { projectId: string; onDone: () => unknown }) {
  const upload = useMutation({
    // The archive goes as it is (a Blob), not through JSON.
    mutationFn: (file: File) =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/import', {
          params: { path: { projectId } },
          body: file,
          bodySerializer: (archive) => archive,
          headers: { 'Content-Type': file.name.endsWith('.zip') ? 'application/zip' : 'application/gzip' },
        }),
      ),
    onSuccess: onDone,
  });
  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) upload.mutate(file);
  };
  return (
    <div>
      <label htmlFor="import-file">Import fastlane metadata (.zip or .tar.gz)</label>
      <input
        id="import-file"
        type="file"
        accept=".zip,.gz,.tgz"
        onChange={onFile}
        disabled={upload.isPending}
      />
      {upload.isPending && <p role="status">Importing…</p>}
      {upload.data && (
        <p role="status">
          Imported{' '}
          {upload.data.imported
            .map(
              (i) =>
                `${STORE_NAMES[i.store]} ${i.locale} (${i.fields === 1 ? '1 field' : `${i.fields} fields`})`,
            )
            .join(', ') || 'nothing'}
          .
          {upload.data.skipped.length > 0 &&
            ` Skipped ${upload.data.skipped.length} other file(s) or folder(s).`}
        </p>
      )}
      <ErrorMessage error={upload.error} />
    </div>
  );
}
