#!/usr/bin/env node
/**
 * Makes a placeholder screenshot to try the media library with:
 *   node examples/make-screenshot.mjs <width> <height> <file.png|file.jpg> [--alpha] [--label TEXT]
 * A gradient with the size (and label) written on it; `--alpha` makes it see-through, which the
 * App Store refuses.
 */
import sharp from 'sharp';

const [width, height, file, ...rest] = process.argv.slice(2);
const w = Number(width);
const h = Number(height);
if (!Number.isInteger(w) || !Number.isInteger(h) || file === undefined) {
  console.error('usage: node examples/make-screenshot.mjs <width> <height> <file.png|file.jpg> [--alpha] [--label TEXT]');
  process.exit(2);
}
const alpha = rest.includes('--alpha');
const labelAt = rest.indexOf('--label');
const label = labelAt >= 0 ? rest[labelAt + 1] : `${w}×${h}`;
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#1e78c8" stop-opacity="${alpha ? 0.4 : 1}"/>
    <stop offset="1" stop-color="#0b2e4f" stop-opacity="${alpha ? 0.4 : 1}"/>
  </linearGradient></defs>
  <rect width="100%" height="100%" fill="url(#g)"/>
  <text x="50%" y="50%" font-family="sans-serif" font-size="${Math.round(w / 10)}" fill="#fff" text-anchor="middle">${label}</text>
</svg>`;
let image = sharp(Buffer.from(svg));
if (!alpha) image = image.flatten({ background: '#0b2e4f' });
await (file.endsWith('.jpg') || file.endsWith('.jpeg') ? image.jpeg() : image.png()).toFile(file);
console.log(`${file}: ${w}×${h}${alpha ? ' with alpha' : ''}`);
