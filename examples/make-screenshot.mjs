#!/usr/bin/env node
/**
 * Makes a placeholder screenshot to try the media library with:
 *   node examples/make-screenshot.mjs <width> <height> <file.png|file.jpg> [--alpha]
 * A gradient with a frame (no text: the same command makes the same bytes on every machine);
 * `--alpha` makes it see-through, which the App Store refuses.
 */
import sharp from 'sharp';

const [width, height, file, ...rest] = process.argv.slice(2);
const w = Number(width);
const h = Number(height);
if (!Number.isInteger(w) || !Number.isInteger(h) || file === undefined) {
  console.error('usage: node examples/make-screenshot.mjs <width> <height> <file.png|file.jpg> [--alpha]');
  process.exit(2);
}
const alpha = rest.includes('--alpha');
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#1e78c8" stop-opacity="${alpha ? 0.4 : 1}"/>
    <stop offset="1" stop-color="#0b2e4f" stop-opacity="${alpha ? 0.4 : 1}"/>
  </linearGradient></defs>
  <rect width="100%" height="100%" fill="url(#g)"/>
  <rect x="5%" y="5%" width="90%" height="90%" rx="${Math.round(w / 20)}" fill="none" stroke="#fff" stroke-width="${Math.max(2, Math.round(w / 100))}"/>
</svg>`;
let image = sharp(Buffer.from(svg));
if (!alpha) image = image.flatten({ background: '#0b2e4f' });
await (file.endsWith('.jpg') || file.endsWith('.jpeg') ? image.jpeg() : image.png()).toFile(file);
console.log(`${file}: ${w}×${h}${alpha ? ' with alpha' : ''}`);
