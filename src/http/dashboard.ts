/**
 * Serves the dashboard's single-page app (design.md §10) from the Vite build in web/dist: hashed
 * assets cached for a year, index.html never cached, every page under a strict
 * Content-Security-Policy, and client routes (/projects/…, /invite/…) answered with index.html.
 * API paths stay JSON: the not-found handler asks isClientRoute before falling back.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic, { type FastifyStaticOptions } from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import type { Api } from './api.js';

export const WEB_ROOT = path.join(PACKAGE_ROOT, 'web/dist');

/** No inline script or style, nothing from another origin, no framing. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_CLIENT_ROUTES = /^\/(api|v1|mcp|docs|healthz|readyz|metrics|assets)(\/|$)/;

/** A GET for a page of the app: not an API path, and no file name. */
export const isClientRoute = (request: FastifyRequest): boolean => {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathname = request.url.split('?')[0]!;
  return !NOT_CLIENT_ROUTES.test(pathname) && !/\.[a-z0-9]+$/i.test(pathname);
};

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    .header('Cache-Control', 'no-cache');
}

/**
 * Registers the built app; returns how to answer a client route, or null when web/dist is missing
 * (the API works without it; `npm run build` makes it).
 */
export async function registerDashboard(
  app: Api,
  root = WEB_ROOT,
): Promise<((reply: FastifyReply) => FastifyReply) | null> {
  const index = path.join(root, 'index.html');
  if (!fs.existsSync(index)) {
    app.log.warn({ root }, 'the dashboard is not built: run npm run build');
    return null;
  }
  const html = fs.readFileSync(index);
  // One operation for every asset route @fastify/static makes (one per built file).
  const assets = async (scope: Api) => {
    scope.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true, operationId: 'dashboard.asset' };
    });
    await scope.register(fastifyStatic, staticOptions);
  };
  const staticOptions: FastifyStaticOptions = {
    root: path.join(root, 'assets'),
    prefix: '/assets/',
    decorateReply: false,
    wildcard: false,
    // web/dist/assets holds each text file's .br and .gz beside it (scripts/compress-assets.ts).
    preCompressed: true,
    cacheControl: false,
    setHeaders: (res) => {
      // File names carry a hash of their content: a new build makes new names.
      res.header('Cache-Control', 'public, max-age=31536000, immutable');
      res.header('X-Content-Type-Options', 'nosniff');
    },
  };
  await app.register(assets);
  const sendIndex = (reply: FastifyReply) => pageHeaders(reply).type('text/html; charset=utf-8').send(html);
  app.get('/', { schema: { hide: true, operationId: 'dashboard.page' } }, (_request, reply) =>
    sendIndex(reply),
  );
  return sendIndex;
}
