/** tar.gz and zip archives of text files, for fastlane import/export. */
import { gunzipSync, gzipSync } from 'node:zlib';
import { unzipSync, zipSync } from 'fflate';
import tar from 'tar-stream';

export type ArchiveFormat = 'tar.gz' | 'zip';

/** Detects the format by magic bytes: gzip 1f 8b, zip "PK\x03\x04". */
export function detectArchive(buffer: Buffer): ArchiveFormat | null {
  if (buffer.length >= 2 && buffer[0] === 0x1f && buffer[1] === 0x8b) return 'tar.gz';
  if (buffer.length >= 4 && buffer.readUInt32LE(0) === 0x04034b50) return 'zip';
  return null;
}

export async function packArchive(files: Map<string, string>, format: ArchiveFormat): Promise<Buffer> {
  if (format === 'zip') {
    const entries = Object.fromEntries([...files].map(([path, text]) => [path, Buffer.from(text, 'utf8')]));
    return Buffer.from(zipSync(entries));
  }
  const pack = tar.pack();
  for (const [path, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    pack.entry({ name: path, mtime: new Date(0) }, Buffer.from(text, 'utf8'));
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** Reads the regular files of an archive as UTF-8 text; limits guard against archive bombs. */
export async function unpackArchive(
  buffer: Buffer,
  limits: { maxFiles: number; maxBytes: number },
): Promise<Map<string, string>> {
  const format = detectArchive(buffer);
  const files = new Map<string, string>();
  let total = 0;
  const add = (path: string, data: Uint8Array) => {
    total += data.length;
    if (files.size >= limits.maxFiles || total > limits.maxBytes) {
      throw new RangeError(`archive is larger than ${limits.maxFiles} files or ${limits.maxBytes} bytes`);
    }
    const name = path.replace(/^\.\//, '');
    if (name.split('/').some((part) => part.startsWith('.') && part !== '.')) return; // hidden files, __MACOSX-like noise
    files.set(name, Buffer.from(data).toString('utf8'));
  };
  if (format === 'zip') {
    const entries = unzipSync(new Uint8Array(buffer), { filter: (file) => !file.name.endsWith('/') });
    for (const [path, data] of Object.entries(entries)) add(path, data);
    return files;
  }
  if (format !== 'tar.gz') throw new TypeError('not a tar.gz or zip archive');
  const tarball = gunzipSync(buffer, { maxOutputLength: limits.maxBytes * 2 });
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        try {
          if (header.type === 'file') add(header.name, Buffer.concat(chunks));
          next();
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      stream.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  extract.end(tarball);
  await done;
  return files;
}
