/** The blob store chosen by BLOB_STORE_URL (design.md §12). */
import type { BlobStoreConfig } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { createFileBlobStore } from './file-blob-store.js';
import { createS3BlobStore } from './s3-blob-store.js';

export * from './blob-store.js';

export function createBlobStore(config: BlobStoreConfig): BlobStore {
  return config.kind === 'file' ? createFileBlobStore(config.path) : createS3BlobStore(config);
}
