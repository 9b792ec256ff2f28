/**
 * How the process serves the dashboard (design.md §10): index.html for the app's pages under a
 * strict Content-Security-Policy and never cached, hashed assets cached for a year, and API paths
 * that stay JSON 404s. Needs the Vite build, which the test setup makes (npm run build).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_ROOT } from '../../src/http/dashboard.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('the dashboard', () => {
  it.each([
    '/',
    '/projects',
    '/projects/proj_x/listings/en-US',
    '/invite/inv_x',
    '/sign-in/asl_x',
    '/organization',
  ])('answers %s with the app under a strict Content-Security-Policy', async (page) => {
    const res = await h.app.inject({ method: 'GET', url: page });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<div id="root"></div>');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('has no inline script in its page, and every script and style it loads is served', async () => {
    const html = (await h.app.inject({ method: 'GET', url: '/' })).body;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await h.app.inject({ method: 'GET', url: asset });
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it('names its assets by content hash', () => {
    const files = fs.readdirSync(path.join(WEB_ROOT, 'assets'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(file).toMatch(/-[A-Za-z0-9_-]{8}\.(js|css)(\.br|\.gz)?$/);
  });

  it.each([
    ['br', 'br', (bytes: Buffer) => zlib.brotliDecompressSync(bytes)],
    ['gzip, deflate', 'gzip', (bytes: Buffer) => zlib.gunzipSync(bytes)],
    ['gzip, deflate, br', 'br', (bytes: Buffer) => zlib.brotliDecompressSync(bytes)],
  ])(
    'sends its assets precompressed as the browser accepts (%s → %s), the same bytes once decoded',
    async (accept, encoding, decode) => {
      const html = (await h.app.inject({ method: 'GET', url: '/' })).body;
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
      const plain = await h.app.inject({ method: 'GET', url: script });
      expect(plain.headers['content-encoding']).toBeUndefined();
      const res = await h.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': accept } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(String(res.headers['vary']).toLowerCase()).toContain('accept-encoding');
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      // The first load's script travels at well under a third of its size.
      expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
      expect(decode(res.rawPayload).equals(plain.rawPayload)).toBe(true);
    },
  );

  it('keeps unknown API paths and missing files JSON 404s', async () => {
    for (const url of [
      '/api/v1/nope',
      '/api/dashboard/nope',
      '/v1/nope',
      '/assets/nope.js',
      '/favicon.ico',
    ]) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
    const post = await h.app.inject({ method: 'POST', url: '/projects' });
    expect(post.statusCode).toBe(404);
  });
});
