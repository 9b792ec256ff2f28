/**
 * The API reference page at /docs: Swagger UI over the OpenAPI document, addresses as requested.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { documentFor } from './openapi.js';

/**
 * Swagger UI's files, found where npm put the package: the plugin would look beside its own
 * module, which in the bundle (dist/) is a chunk of ours.
 */
const FILES = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')),
  'static',
);

export async function registerReferencePage(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    baseDir: FILES,
    logo: { type: 'image/svg+xml', content: fs.readFileSync(path.join(FILES, 'logo.svg')) },
    transformSpecificationClone: true,
    transformSpecification: (document, request) => documentFor(document, request, publicUrl),
  });
}
