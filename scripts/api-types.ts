/**
 * The dashboard's API types, generated from the service's own OpenAPI document by
 * openapi-typescript (binary bodies as Blob). `npm run web:types` writes web/src/api/schema.d.ts;
 * test/http/web-api-types.test.ts fails when that file is stale.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';

export const API_TYPES_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../web/src/api/schema.d.ts',
);

const HEADER = '// Generated from the OpenAPI document by `npm run web:types`; do not edit.\n\n';
const BLOB = ts.factory.createTypeReferenceNode('Blob');

export async function generateApiTypes(): Promise<string> {
  const config = loadConfig({
    DATABASE_URL: 'file::memory:',
    APPMETA_SECRET_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
  });
  const db = createDb(config.database);
  try {
    await migrateToLatest(db);
    const { app } = await buildApp({ config, db });
    await app.ready();
    const document = app.swagger() as OpenAPI3;
    await app.close();
    const ast = await openapiTS(document, {
      transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
    });
    return HEADER + astToString(ast);
  } finally {
    await db.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(API_TYPES_FILE, await generateApiTypes());
  process.stdout.write(`wrote ${path.relative(process.cwd(), API_TYPES_FILE)}\n`);
}
