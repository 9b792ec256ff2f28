/**
 * A client generated from the OpenAPI document compiles and runs the README's calls
 * (test/typed-client/readme-calls.ts): openapi-typescript makes the types from this instance's
 * document, TypeScript compiles the calls against them as strictly as the project's own code, and
 * openapi-fetch sends them to a listening instance linked to the store emulators.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

const HERE = path.join(import.meta.dirname, '../typed-client');
const CALLS = 'readme-calls.ts';
const STATUS_CALLS = 'status-calls.ts';

let emu: RunningEmulators;
let h: Harness;
let org: TestOrganization;
let baseUrl: string;
let build: string;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env });
  org = await h.given.organization();
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  // Inside the repository, so that the compiled calls resolve openapi-fetch from node_modules.
  build = fs.mkdtempSync(path.join(HERE, '.run-'));
});

afterAll(async () => {
  if (build) fs.rmSync(build, { recursive: true, force: true });
  await h?.close();
  await emu?.close();
});

/** openapi-typescript's documented transform for uploads and downloads: binary is a Blob. */
const BLOB = ts.factory.createTypeReferenceNode('Blob');

async function generateTypes(): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/openapi.json`);
  const document = (await response.json()) as OpenAPI3;
  const ast = await openapiTS(document, {
    transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
  });
  return astToString(ast);
}

/** Compiles the copied calls with the project's compiler options; answers the diagnostics. */
function compile(file: string): string[] {
  const configPath = path.join(import.meta.dirname, '../..', 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configPath));
  const program = ts.createProgram([file], { ...options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.basename(d.file.fileName) : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

describe('a client generated from the OpenAPI document', () => {
  it('compiles the README calls and runs them against the service', async () => {
    fs.writeFileSync(path.join(build, 'appmeta-api.d.ts'), await generateTypes());
    const calls = path.join(build, CALLS);
    fs.copyFileSync(path.join(HERE, CALLS), calls);

    expect(compile(calls)).toEqual([]);

    // Typed loosely here: the precise types exist only in the build folder, checked by compile().
    const { runReadmeCalls } = (await import(pathToFileURL(calls).href)) as {
      runReadmeCalls: (baseUrl: string, key: string, credentials: unknown) => Promise<Record<string, any>>;
    };
    const r = await runReadmeCalls(baseUrl, org.admin.apiKey, emu.credentials);

    expect(r.list).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(r.list.projects[0]?.id).toBe(r.projectId);
    expect(r.read.project.id).toBe(r.projectId);
    expect(r.updated.project).toMatchObject({ name: 'Scratch+', playStorePackageName: null });
    expect(r.deleted).toEqual({ deleted: true });
    expect(r.goneCode).toBe('NOT_FOUND');
    expect(r.preview.email).toBe('dana@example.com');
    expect(r.accepted.apiKey).toMatch(/^amk_/);
    expect(r.promoted.role).toBe('member');
    expect(r.members.members.map((m: { email: string }) => m.email)).toContain('dana@example.com');
    expect(r.key.apiKey).toMatch(/^amk_/);
    expect(r.edited.listing.fields.subtitle?.value).toBe('Radar maps and rain alerts');
    expect(r.copied.copied).toContainEqual({ from: 'name', to: 'title' });
    expect(r.diff.changeCount).toBeGreaterThan(0);
    const edits = r.history.entries.filter((e: { source: string }) => e.source === 'edit');
    expect(edits.map((e: { field: string; new: string }) => [e.field, e.new])).toEqual([
      ['subtitle', 'Radar maps and rain alerts'],
    ]);
    expect(r.locales.stores.appstore.map((l: { code: string }) => l.code)).toContain('de-DE');
    expect(r.locales.project).toEqual({ appstore: ['en-US'], playstore: ['de-DE', 'en-US'] });
    expect(r.verified).toMatchObject({ store: 'playstore', verified: true });
    expect(r.synced.failures).toEqual([]);
    expect(r.dryRun).toMatchObject({ dryRun: true, changeCount: 2 });
    expect(r.approval.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.pushed).toMatchObject({ failures: [], appStore: { pushed: true }, playStore: { pushed: true } });
    expect(r.operations.operations.map((o: { kind: string }) => o.kind)).toEqual(['push', 'sync']); // a dry run is not an operation
    expect(r.archiveBytes).toBeGreaterThan(0);
    expect(r.imported.imported.length).toBeGreaterThan(0);
    expect(r.audit.entries.map((e: { action: string }) => e.action)).toContain('listings.approve');
  });

  it('tells a 429 with Retry-After from a 404, in its types and at run time', async () => {
    fs.writeFileSync(path.join(build, 'appmeta-api.d.ts'), await generateTypes());
    const calls = path.join(build, STATUS_CALLS);
    fs.copyFileSync(path.join(HERE, STATUS_CALLS), calls);
    expect(compile(calls)).toEqual([]);
    // The compiler refuses a document that gave a 404 a Retry-After: the check is not vacuous.
    const wrong = path.join(build, 'wrong-status-calls.ts');
    fs.writeFileSync(
      wrong,
      fs
        .readFileSync(calls, 'utf8')
        .replace(
          'notFoundHasRetryAfter: Has<Named<ProjectResponses[404]',
          'notFoundHasRetryAfter: Has<Named<ProjectResponses[429]',
        ),
    );
    expect(compile(wrong).join('\n')).toMatch(/Type 'false' is not assignable to type 'true'/);

    const free = await h.given.organization({ plan: 'free' });
    const { statusCalls } = (await import(pathToFileURL(calls).href)) as {
      statusCalls: (baseUrl: string, key: string) => Promise<Record<string, any>>;
    };
    const seen = await statusCalls(baseUrl, free.admin.apiKey);
    expect(seen.notFound).toEqual({ status: 404, code: 'NOT_FOUND', retryAfter: null });
    expect(seen.tooMany).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', remaining: 0 });
    expect(seen.tooMany.retryAfter).toBeGreaterThan(0);
  });
});
