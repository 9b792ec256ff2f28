/**
 * The files of App Store media in the emulator: images read for their format and size, the upload
 * operations' parts received, and what Apple's CDN serves (a re-encoded copy).
 */
import { crc32 } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { MediaAsset } from './media-state.js';
import type { AppStoreState } from './state.js';

export const UPLOAD_LIFETIME_MS = 7 * 24 * 3600_000;

/** Format, size and alpha from the first bytes: PNG (IHDR, tRNS) and JPEG (SOFn). */
export function readImage(
  bytes: Buffer,
): { format: 'png' | 'jpeg'; width: number; height: number; alpha: boolean } | null {
  if (
    bytes.length > 24 &&
    bytes.readUInt32BE(0) === 0x89504e47 &&
    bytes.toString('latin1', 12, 16) === 'IHDR'
  ) {
    const colourType = bytes[25]!;
    const alpha = colourType === 4 || colourType === 6 || bytes.includes(Buffer.from('tRNS', 'latin1'));
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), alpha };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let at = 2;
    while (at + 9 < bytes.length && bytes[at] === 0xff) {
      const marker = bytes[at + 1]!;
      const length = bytes.readUInt16BE(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return {
          format: 'jpeg',
          height: bytes.readUInt16BE(at + 5),
          width: bytes.readUInt16BE(at + 7),
          alpha: false,
        };
      }
      at += 2 + length;
    }
  }
  return null;
}

/** Bytes of the parts received so far. */
export const receivedBytes = (shot: MediaAsset, partSize: number) =>
  shot.received.reduce(
    (sum, done, index) => (done ? sum + Math.min(partSize, shot.fileSize - index * partSize) : sum),
    0,
  );

export const contentTypeOf = (fileName: string) =>
  /\.jpe?g$/i.test(fileName)
    ? 'image/jpeg'
    : /\.mov$/i.test(fileName)
      ? 'video/quicktime'
      : /\.(mp4|m4v)$/i.test(fileName)
        ? 'video/mp4'
        : 'image/png';

/**
 * What Apple's CDN serves for a processed file: a re-encoded copy (A1.3), so its MD5 is never the
 * source checksum. Here a comment is added to the image (a PNG tEXt chunk after IHDR, a JPEG COM
 * segment after SOI) or a `free` box to the video: the same picture, other bytes.
 */
export function reencoded(bytes: Buffer): Buffer {
  const note = Buffer.from('Software\0appmeta-emulator CDN', 'latin1');
  if (bytes.readUInt32BE(0) === 0x89504e47) {
    const type = Buffer.from('tEXt', 'latin1');
    const chunk = Buffer.alloc(12 + note.length);
    chunk.writeUInt32BE(note.length, 0);
    type.copy(chunk, 4);
    note.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(Buffer.concat([type, note])), 8 + note.length);
    return Buffer.concat([bytes.subarray(0, 33), chunk, bytes.subarray(33)]);
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const segment = Buffer.alloc(4 + note.length);
    segment.writeUInt16BE(0xfffe, 0);
    segment.writeUInt16BE(2 + note.length, 2);
    note.copy(segment, 4);
    return Buffer.concat([bytes.subarray(0, 2), segment, bytes.subarray(2)]);
  }
  const free = Buffer.alloc(8 + note.length);
  free.writeUInt32BE(free.length, 0);
  free.write('free', 4, 'latin1');
  note.copy(free, 8);
  return Buffer.concat([bytes, free]);
}

/** The processed files as Apple's CDN serves them: images by template URL, previews as HLS. */
export function registerAssetRoute(app: FastifyInstance, state: AppStoreState): void {
  app.get<{ Params: { id: string; file: string } }>('/emulator-assets/:id/:file', async (request, reply) => {
    const asset = state.media.assets.get(request.params.id);
    if (asset === undefined || asset.state !== 'COMPLETE') return reply.code(404).send();
    const { file } = request.params;
    if (file === 'video.m3u8') {
      return reply
        .type('application/vnd.apple.mpegurl')
        .send(
          '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:30\n#EXTINF:30.0,\nvideo.mp4\n#EXT-X-ENDLIST\n',
        );
    }
    if (file === 'video.mp4' && asset.kind === 'previews')
      return reply.type('video/mp4').send(reencoded(asset.bytes));
    const image = /^(\d+)x(\d+)bb\.(png|jpg)$/.exec(file);
    if (image === null || asset.kind !== 'screenshots') return reply.code(404).send();
    return reply.type(asset.bytes[0] === 0xff ? 'image/jpeg' : 'image/png').send(reencoded(asset.bytes));
  });
}

/**
 * The upload operations' target: no JWT (the URLs are the credential), parts in any order and
 * re-sendable until the commit; refused after the commit or once expired.
 */
export function registerUploadRoute(app: FastifyInstance, state: AppStoreState): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 },
      (_request, body, done) => done(null, body),
    );
    scope.put<{ Params: { id: string }; Querystring: { partNumber?: string; Expires?: string } }>(
      '/emulator-uploads/:id',
      async (request, reply) => {
        const shot = state.media.assets.get(request.params.id);
        if (shot === undefined)
          return reply.code(404).type('application/xml').send('<Error><Code>NoSuchUpload</Code></Error>');
        if (shot.state !== 'AWAITING_UPLOAD' || state.now() > shot.expiresAt) {
          return reply
            .code(403)
            .type('application/xml')
            .send('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
        }
        const part = Number(request.query.partNumber);
        const offset = (part - 1) * state.media.settings.partSize;
        const body = request.body as Buffer;
        const expected = Math.min(state.media.settings.partSize, shot.fileSize - offset);
        if (!Number.isInteger(part) || part < 1 || offset >= shot.fileSize || body.length !== expected) {
          return reply.code(400).type('application/xml').send('<Error><Code>InvalidPart</Code></Error>');
        }
        if (request.headers['content-type'] !== contentTypeOf(shot.fileName)) {
          return reply
            .code(400)
            .type('application/xml')
            .send('<Error><Code>InvalidContentType</Code></Error>');
        }
        body.copy(shot.bytes, offset);
        shot.received[part - 1] = true;
        return reply.code(200).send();
      },
    );
  });
}
