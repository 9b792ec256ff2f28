/**
 * `npm run build`'s last step: beside every text asset of the dashboard's build (web/dist/assets),
 * its brotli (`.br`) and gzip (`.gz`) forms, made once at the highest levels, so that the service
 * sends whichever the browser accepts without compressing anything per request (design.md §10;
 * the first load's JavaScript is about a third of its size in brotli).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const ASSETS = path.resolve(import.meta.dirname, '..', 'web', 'dist', 'assets');
const TEXT = /\.(js|css|svg|json|map|txt|html)$/;

let written = 0;
for (const name of fs.readdirSync(ASSETS)) {
  if (!TEXT.test(name)) continue;
  const file = path.join(ASSETS, name);
  const bytes = fs.readFileSync(file);
  const brotli = zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  const gzip = zlib.gzipSync(bytes, { level: zlib.constants.Z_BEST_COMPRESSION });
  // A form no smaller than the file itself is left out: the file goes as it is.
  if (brotli.length < bytes.length) fs.writeFileSync(`${file}.br`, brotli);
  if (gzip.length < bytes.length) fs.writeFileSync(`${file}.gz`, gzip);
  written += 1;
}
if (written === 0) throw new Error(`no asset to compress in ${ASSETS}: did the dashboard build?`);
