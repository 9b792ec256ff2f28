import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_OPERATIONS } from '../../src/mcp/server.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';
import { distinctColour, image, upload } from '../support/media.js';

let h: Harness;
let url: string;
let org: TestOrganization;
const actors = {} as Record<'admin' | 'member' | 'viewer', Actor>;
const clients: Client[] = [];

beforeAll(async () => {
  h = await startHarness();
  url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  org = await h.given.organization({ plan: 'pro' });
  actors.admin = org.admin;
  actors.member = await h.given.member(org, 'member');
  actors.viewer = await h.given.member(org, 'viewer');
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await h.close();
});

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'appmeta-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, data: result.structuredContent as any };
};

describe('MCP endpoint at /mcp', () => {
  it('initializes and lists every tool with schemas, descriptions and annotations', async () => {
    const client = await connect(actors.viewer.apiKey);
    expect(client.getServerVersion()?.name).toBe('appmeta');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(
      [
        'accept_translations',
        'approve_changes',
        'list_approval_requests',
        'request_approval',
        'copy_listing',
        'create_project',
        'export_fastlane',
        'cancel_operation',
        'get_diff',
        'get_history',
        'get_operation',
        'get_listings',
        'get_organization',
        'get_project',
        'get_translations',
        'import_fastlane',
        'machine_translate',
        'list_locales',
        'list_members',
        'list_operations',
        'list_projects',
        'push_project',
        'revert_field',
        'sync_project',
        'update_listing',
        'update_project',
        'list_media',
        'reorder_media',
        'copy_media',
        'remove_media',
        'get_media_history',
        'revert_media',
        'list_releases',
        'create_app_store_version',
        'get_release_notes',
        'update_release_notes',
        'list_products',
        'get_product',
        'update_product',
        'get_product_history',
        'revert_product_text',
        'copy_product_texts',
        'list_product_pages',
        'update_product_page',
        'copy_default_page',
        'list_app_events',
        'update_app_event',
        'get_details',
        'update_details',
        'list_schedules',
        'schedule_change',
        'cancel_schedule',
        'get_release_controls',
        'apply_release_control',
        'validate_listing',
        'delete_locale',
        'upload_screenshot',
        'list_glossaries',
        'set_glossary',
        'delete_glossary',
        'list_webhooks',
        'create_webhook',
        'delete_webhook',
        'list_audit_log',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe('object');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.list_projects!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.push_project!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.update_listing!.inputSchema.required).toEqual(
      expect.arrayContaining(['projectId', 'store', 'locale', 'fields']),
    );
  });

  it('declares an output schema for every tool, and refuses an unknown tool as a protocol error', async () => {
    const client = await connect(actors.admin.apiKey);
    const { tools } = await client.listTools();
    const missing = tools.filter((t) => t.outputSchema?.type !== 'object').map((t) => t.name);
    expect(missing).toEqual([]);
    // The SDK client checks each structured answer against the tool's schema: one that did not
    // match would be thrown here. And the server checked it before answering.
    const projectId = (await h.given.project(actors.admin, { appStoreAppId: '1' })).id;
    const listed = await client.callTool({ name: 'list_projects', arguments: {} });
    expect(listed.isError).not.toBe(true);
    expect(tools.find((t) => t.name === 'get_project')!.outputSchema!.required).toEqual(['project']);
    const read = await client.callTool({ name: 'get_project', arguments: { projectId } });
    expect((read.structuredContent as any).project.id).toBe(projectId);
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: delete_everything'),
    });
  });

  it('validates before writing, uploads a screenshot, deletes a locale, keeps glossaries and webhooks, reads the audit', async () => {
    const projectId = (await h.given.project(actors.admin, { playStorePackageName: 'com.example.mcp' })).id;
    const member = await connect(actors.member.apiKey);
    const admin = await connect(actors.admin.apiKey);
    const tooLong = await call(member, 'validate_listing', {
      projectId,
      store: 'playstore',
      locale: 'de-DE',
      fields: { title: 'x'.repeat(31), shortDescription: 'Wetter' },
    });
    expect(tooLong.data.error.details).toEqual([
      expect.objectContaining({ field: 'title', limit: 30, length: 31 }),
    ]);
    const fine = await call(member, 'validate_listing', {
      projectId,
      store: 'playstore',
      locale: 'de-DE',
      fields: { title: 'Wetter' },
    });
    expect(fine.data).toMatchObject({ valid: true });
    // Nothing was written by either.
    expect(
      (await actors.member.api.get(`/api/v1/projects/${projectId}/listings`)).body.data.listings,
    ).toEqual([]);

    const png = await image({ width: 320, height: 640, colour: distinctColour() });
    const uploaded = await call(member, 'upload_screenshot', {
      projectId,
      store: 'playstore',
      locale: 'de-DE',
      slotType: 'phoneScreenshots',
      fileName: 'home.png',
      base64: png.toString('base64'),
    });
    expect(uploaded.isError, JSON.stringify(uploaded.data)).toBe(false);
    expect(uploaded.data).toMatchObject({ width: 320, height: 640, position: 1, replaced: null });
    const tiny = await call(member, 'upload_screenshot', {
      projectId,
      store: 'playstore',
      locale: 'de-DE',
      slotType: 'phoneScreenshots',
      fileName: 'tiny.png',
      base64: (await image({ width: 40, height: 40, colour: distinctColour() })).toString('base64'),
    });
    expect(tiny.data.error.code).toBe('INVALID_REQUEST');

    await call(member, 'update_listing', {
      projectId,
      store: 'playstore',
      locale: 'de-DE',
      fields: { title: 'Wetter' },
    });
    expect(
      (await call(member, 'delete_locale', { projectId, store: 'playstore', locale: 'de-DE' })).data,
    ).toEqual({
      deleted: true,
      pendingStoreRemoval: false,
    });

    // An admin's organization tools; a member is refused them as over REST.
    expect((await call(member, 'list_webhooks')).data.error.code).toBe('FORBIDDEN');
    const hook = await call(admin, 'create_webhook', {
      url: 'https://hooks.example.com/mcp',
      events: ['push.completed'],
    });
    expect(hook.data.secret).toMatch(/^whsec_/);
    expect((await call(admin, 'list_webhooks')).data.webhooks.map((w: { id: string }) => w.id)).toContain(
      hook.data.webhook.id,
    );
    expect((await call(admin, 'delete_webhook', { webhookId: hook.data.webhook.id })).data).toEqual({
      deleted: true,
    });
    const glossary = await call(admin, 'set_glossary', {
      source: 'en',
      target: 'de',
      terms: ['Weather Pro'],
    });
    expect(glossary.isError, JSON.stringify(glossary.data)).toBe(false);
    expect((await call(admin, 'list_glossaries')).data.glossaries).toHaveLength(1);
    expect((await call(admin, 'delete_glossary', { source: 'en', target: 'de' })).data).toEqual({
      deleted: true,
    });
    const audit = await call(admin, 'list_audit_log', { projectId, limit: 5 });
    expect(audit.data).toMatchObject({ limit: 5, offset: 0 });
    expect(audit.data.entries.map((e: { action: string }) => e.action)).toContain('listings.delete');
  });

  it('keeps the README’s tool table as tools/list answers it', async () => {
    const client = await connect(actors.viewer.apiKey);
    const { tools } = await client.listTools();
    const rows = tools
      .map((t) => [
        `\`${t.name}\``,
        t.title ?? '',
        (TOOL_OPERATIONS as Record<string, readonly string[]>)[t.name]!.map((o) => `\`${o}\``).join(', '),
        t.annotations?.readOnlyHint === true
          ? 'reads'
          : t.annotations?.destructiveHint === true
            ? 'writes, destructive'
            : 'writes',
      ])
      .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
    const generated = [
      '| tool | does | operations | kind |',
      '| --- | --- | --- | --- |',
      ...rows.map((r) => `| ${r.join(' | ')} |`),
    ];
    const readme = path.join(import.meta.dirname, '../../README.md');
    const text = fs.readFileSync(readme, 'utf8');
    const [before, rest] = text.split('<!-- tools:start -->\n');
    const [table, after] = rest!.split('<!-- tools:end -->');
    if (process.env.APPMETA_README_UPDATE === '1') {
      fs.writeFileSync(
        readme,
        `${before}<!-- tools:start -->\n${generated.join('\n')}\n<!-- tools:end -->${after}`,
      );
      return;
    }
    // Cells compared, not padding: prettier aligns the columns.
    const cells = (lines: string[]) =>
      lines
        .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
        .map((line) =>
          line
            .split('|')
            .slice(1, -1)
            .map((cell) => cell.trim())
            .join(' | '),
        );
    expect(cells(table!.trim().split('\n'))).toEqual(cells(generated));
  });

  it('lets a member do what REST lets a member do, with the same results', async () => {
    const client = await connect(actors.member.apiKey);
    const created = await call(client, 'create_project', {
      name: 'From MCP',
      appStoreAppId: '77',
      playStorePackageName: 'com.mcp.app',
    });
    expect(created.isError).toBe(false);
    const projectId = created.data.project.id;
    const rest = await actors.member.api.get(`/api/v1/projects/${projectId}`);
    expect(rest.body.data.project.name).toBe('From MCP');

    expect(
      (await call(client, 'update_project', { projectId, name: 'Renamed by MCP' })).data.project.name,
    ).toBe('Renamed by MCP');
    const listed = await call(client, 'list_projects', { limit: 5 });
    expect(listed.data.projects.map((p: any) => p.id)).toContain(projectId);
    expect((await call(client, 'get_project', { projectId })).data.project.metadata).toEqual({
      locales: [],
      lastSyncedAt: null,
    });

    const edited = await call(client, 'update_listing', {
      projectId,
      store: 'appstore',
      locale: 'en-US',
      fields: { name: 'MCP App', description: 'Works on Android too' },
    });
    expect(edited.data.listing.fields.name.value).toBe('MCP App');
    expect(edited.data.warnings[0].field).toBe('description');
    expect(
      (await call(client, 'get_listings', { projectId, store: 'appstore', locale: 'en-US' })).data.listing
        .fields.name.value,
    ).toBe('MCP App');
    expect((await call(client, 'get_listings', { projectId })).data.listings).toHaveLength(1);

    const diff = await call(client, 'get_diff', { projectId });
    expect(diff.data.stores.appstore['en-US'].name).toEqual({ old: null, new: 'MCP App' });
    const restDiff = await actors.member.api.get(`/api/v1/projects/${projectId}/diff`);
    expect(diff.data).toEqual(restDiff.body.data);

    const dryRun = await call(client, 'push_project', { projectId, dryRun: true, locales: ['en-US'] });
    expect(dryRun.data).toMatchObject({
      dryRun: true,
      changeCount: 2,
      changes: { appstore: { 'en-US': { name: { new: 'MCP App' } } } },
    });
    const pushed = await call(client, 'push_project', { projectId });
    expect(pushed.data.appStore).toMatchObject({ pushed: false, error: { code: 'CREDENTIALS_MISSING' } });
    expect(
      (await call(client, 'sync_project', { projectId, store: 'playstore' })).data.playStore.synced,
    ).toBe(false);
    expect((await call(client, 'get_organization')).data.id).toBe(org.id);
    expect((await call(client, 'list_members')).data.members).toHaveLength(3);

    const resource = await client.readResource({ uri: `appmeta://projects/${projectId}/listings` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text).listings[0].locale).toBe('en-US');
  });

  it('lists, reorders, copies, removes and reverts media as REST does; a viewer only reads', async () => {
    const project = (
      await h.given.project(actors.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.mcp' })
    ).id;
    const slot = `/api/v1/projects/${project}/media/playstore/en-US/phoneScreenshots`;
    const ids: string[] = [];
    for (const _ of [1, 2]) {
      const bytes = await image({ width: 1080, height: 1920, colour: distinctColour() });
      ids.push((await upload(h, actors.admin.apiKey, slot, bytes)).body.data.id);
    }
    const member = await connect(actors.member.apiKey);
    const where = { projectId: project, store: 'playstore', locale: 'en-US', slotType: 'phoneScreenshots' };

    const listed = await call(member, 'list_media', { projectId: project, store: 'playstore' });
    expect(listed.data.slots[0].items.map((i: { id: string }) => i.id)).toEqual(ids);
    const reordered = await call(member, 'reorder_media', { ...where, items: [...ids].reverse() });
    expect(reordered.data.slot.items.map((i: { id: string }) => i.id)).toEqual([...ids].reverse());
    const copied = await call(member, 'copy_media', {
      projectId: project,
      from: { store: 'playstore', locale: 'en-US' },
      to: { store: 'playstore', locale: 'de-DE' },
    });
    expect(copied.data.copied).toEqual([{ from: 'phoneScreenshots', to: 'phoneScreenshots', items: 2 }]);
    const removed = await call(member, 'remove_media', { ...where, itemId: ids[0] });
    expect(removed.data.slot.items.map((i: { id: string }) => i.id)).toEqual([ids[1]]);
    const history = await call(member, 'get_media_history', where);
    expect(history.data.entries.map((e: { source: string }) => e.source)).toEqual([
      'remove',
      'reorder',
      'upload',
      'upload',
    ]);
    const reverted = await call(member, 'revert_media', { ...where, historyId: history.data.entries[0].id });
    expect(reverted.data.slot.items).toHaveLength(2);
    const rest = await actors.member.api.get(
      `/api/v1/projects/${project}/media?store=playstore&locale=en-US`,
    );
    expect(rest.body.data.slots[0].items).toEqual(reverted.data.slot.items);

    const viewer = await connect(actors.viewer.apiKey);
    expect((await call(viewer, 'list_media', { projectId: project })).isError).toBe(false);
    const refused = await call(viewer, 'remove_media', { ...where, itemId: ids[1] });
    expect(refused.isError).toBe(true);
    expect(refused.data.error.code).toBe('FORBIDDEN');
  });

  it('answers domain errors as tool errors with the REST codes', async () => {
    const client = await connect(actors.member.apiKey);
    const invalid = await call(client, 'create_project', { name: 'x', appStoreAppId: 'abc' });
    expect(invalid.isError).toBe(true);
    expect(invalid.data.error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'appStoreAppId' }],
    });
    const missing = await call(client, 'get_project', { projectId: 'proj_nothing' });
    expect(missing.data.error.code).toBe('NOT_FOUND');
    const tooLong = await call(client, 'update_listing', {
      projectId: (await h.given.project(actors.member, { playStorePackageName: 'com.a.b' })).id,
      store: 'playstore',
      locale: 'en-US',
      fields: { title: 'T'.repeat(31) },
    });
    expect(tooLong.data.error.details).toEqual([
      { field: 'title', message: 'must be at most 30 characters (has 31)', limit: 30, length: 31 },
    ]);
  });

  it('starts a push in the background, reads it as REST does, and cancels it', async () => {
    const projectId = (await h.given.project(actors.admin, { appStoreAppId: '1' })).id;
    const member = await connect(actors.member.apiKey);
    await call(member, 'update_listing', {
      projectId,
      store: 'appstore',
      locale: 'en-US',
      fields: { name: 'Queued App' },
    });
    const started = await call(member, 'push_project', { projectId, background: true });
    expect(started.isError).toBe(false);
    // No worker runs in this test's app: the push waits in the queue.
    expect(started.data.operation).toMatchObject({ kind: 'push', status: 'queued', stores: ['appstore'] });
    const id = started.data.operation.id;
    const read = await call(member, 'get_operation', { projectId, operationId: id });
    const rest = await actors.member.api.get(`/api/v1/projects/${projectId}/operations/${id}`);
    expect(read.data).toEqual(rest.body.data);
    const viewer = await connect(actors.viewer.apiKey);
    expect((await call(viewer, 'get_operation', { projectId, operationId: id })).isError).toBe(false);
    expect((await call(viewer, 'cancel_operation', { projectId, operationId: id })).data.error.code).toBe(
      'FORBIDDEN',
    );
    const cancelled = await call(member, 'cancel_operation', { projectId, operationId: id });
    expect(cancelled.data.operation.status).toBe('cancelled');
    const dryRun = await call(member, 'push_project', { projectId, dryRun: true, background: true });
    expect(dryRun.data.dryRun).toBe(true); // a dry run answers at once
  });

  it('schedules the diff in a time zone, lists it as REST does, and cancels it', async () => {
    const projectId = (await h.given.project(actors.admin, { appStoreAppId: '1' })).id;
    const member = await connect(actors.member.apiKey);
    await call(member, 'update_listing', {
      projectId,
      store: 'appstore',
      locale: 'en-US',
      fields: { promotionalText: 'Launch week' },
    });
    const { hash } = (await call(member, 'get_diff', { projectId })).data;
    const created = await call(member, 'schedule_change', {
      projectId,
      hash,
      at: '2099-06-01T09:00',
      timeZone: 'Australia/Sydney',
      note: 'Launch',
    });
    expect(created.isError).toBe(false);
    expect(created.data.schedule).toMatchObject({
      status: 'scheduled',
      at: '2099-05-31T23:00:00.000Z',
      atLocal: '2099-06-01T09:00:00+10:00',
    });
    const listed = await call(member, 'list_schedules', { projectId });
    const rest = await actors.member.api.get(`/api/v1/projects/${projectId}/schedules`);
    expect(listed.data.schedules).toEqual(rest.body.data.schedules);
    const wrong = await call(member, 'schedule_change', { projectId, hash, at: '2099-06-01T09:00' });
    expect(wrong.data.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(wrong.data.error.message).toMatch(/has no offset/);
    const viewer = await connect(actors.viewer.apiKey);
    const id = created.data.schedule.id;
    expect((await call(viewer, 'cancel_schedule', { projectId, scheduleId: id })).data.error.code).toBe(
      'FORBIDDEN',
    );
    expect((await call(member, 'cancel_schedule', { projectId, scheduleId: id })).data.schedule.status).toBe(
      'cancelled',
    );
    // No store credentials here: reading the release controls says what is missing.
    const controls = await call(member, 'get_release_controls', { projectId });
    expect(controls.data.error.message).toMatch(/No App Store credentials/);
  });

  it('applies the roles of REST: a viewer reads but may not write', async () => {
    const project = (await h.given.project(actors.admin, { appStoreAppId: '1' })).id;
    const viewer = await connect(actors.viewer.apiKey);
    expect((await call(viewer, 'get_project', { projectId: project })).isError).toBe(false);
    expect((await call(viewer, 'get_diff', { projectId: project })).isError).toBe(false);
    for (const [name, args] of [
      ['create_project', { name: 'No' }],
      ['update_project', { projectId: project, name: 'No' }],
      ['update_listing', { projectId: project, store: 'appstore', locale: 'en-US', fields: { name: 'No' } }],
      ['sync_project', { projectId: project }],
      ['push_project', { projectId: project }],
      [
        'copy_listing',
        { projectId: project, from: { store: 'appstore', locale: 'en-US' }, to: { store: 'playstore' } },
      ],
      ['approve_changes', { projectId: project, hash: 'a'.repeat(64) }],
      ['request_approval', { projectId: project }],
      ['import_fastlane', { projectId: project, files: { 'fastlane/metadata/en-US/name.txt': 'No' } }],
    ] as const) {
      const res = await call(viewer, name, args);
      expect(res.isError, name).toBe(true);
      expect(res.data.error.code).toBe('FORBIDDEN');
    }
    // A dry run writes nothing: a viewer may ask for one.
    expect((await call(viewer, 'push_project', { projectId: project, dryRun: true })).data.dryRun).toBe(true);
    const admin = await connect(actors.admin.apiKey);
    expect((await call(admin, 'update_project', { projectId: project, name: 'Yes' })).isError).toBe(false);
  });

  it("scopes to the caller's organization: another organization's project is not found", async () => {
    const other = await h.given.organization();
    const theirs = (await h.given.project(other.admin, { appStoreAppId: '1' })).id;
    const client = await connect(actors.admin.apiKey);
    for (const [name, args] of [
      ['get_project', { projectId: theirs }],
      ['get_listings', { projectId: theirs }],
      ['get_diff', { projectId: theirs }],
      ['update_project', { projectId: theirs, name: 'Mine' }],
      ['push_project', { projectId: theirs, dryRun: true }],
    ] as const) {
      expect((await call(client, name, args)).data.error.code, name).toBe('NOT_FOUND');
    }
    expect((await call(client, 'list_projects')).data.projects.map((p: any) => p.id)).not.toContain(theirs);
  });

  it('refuses a wrong key with 401, and GET with 405', async () => {
    const wrong = new Client({ name: 'wrong', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer amk_${'x'.repeat(43)}` } },
    });
    await expect(wrong.connect(transport)).rejects.toThrow(/401|Unauthorized|invalid/i);
    const none = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    const get = await fetch(`${url}/mcp`, { headers: { authorization: `Bearer ${actors.viewer.apiKey}` } });
    expect(get.status).toBe(405);
  });

  it('counts MCP requests against the same rate limit as REST', async () => {
    const before = Number(
      (await actors.viewer.api.get('/api/v1/organization')).headers['x-ratelimit-remaining'],
    );
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${actors.viewer.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    const after = Number(
      (await actors.viewer.api.get('/api/v1/organization')).headers['x-ratelimit-remaining'],
    );
    expect(after).toBe(before - 2);
  });

  it('counts each tool call of a JSON-RPC batch against the rate limit (Free plan)', async () => {
    const free = await h.given.organization({ plan: 'free' });
    const batch = (size: number, first: number) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${free.admin.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-03-26',
        },
        body: JSON.stringify(
          Array.from({ length: size }, (_, i) => ({
            jsonrpc: '2.0',
            id: first + i,
            method: 'tools/call',
            params: { name: 'list_projects', arguments: {} },
          })),
        ),
      });
    // 100 calls in one request use the whole minute's budget of the Free plan...
    const full = await batch(100, 1);
    expect(full.status).toBe(200);
    expect(full.headers.get('x-ratelimit-remaining')).toBe('0');
    const answers = (await full.json()) as { id: number; result?: unknown }[];
    expect(answers).toHaveLength(100);
    expect(answers.every((answer) => answer.result !== undefined)).toBe(true);
    // ...so the next request of the organization, by REST, is over the limit.
    const next = await free.admin.api.get('/api/v1/projects');
    expect(next.status).toBe(429);
    expect(next.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('refuses a batch that does not fit in the remaining budget, running none of it', async () => {
    const free = await h.given.organization({ plan: 'free' });
    const project = await h.given.project(free.admin, { name: 'Before' });
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${free.admin.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(
        Array.from({ length: 100 }, (_, i) => ({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'update_project', arguments: { projectId: project.id, name: `Batch ${i}` } },
        })),
      ),
    });
    expect(res.status).toBe(429);
    expect(((await res.json()) as any).error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // The project was not renamed by any call of the batch.
    const row = await h.db.kysely
      .selectFrom('projects')
      .select('name')
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    expect(row.name).toBe('Before');
  });

  it('returns every validation problem at once, each with its field, limit and length', async () => {
    const client = await connect(actors.member.apiKey);
    const projectId = (await h.given.project(actors.member, { appStoreAppId: '9' })).id;
    const res = await call(client, 'update_listing', {
      projectId,
      store: 'appstore',
      locale: 'en-US',
      fields: { name: 'N', subtitle: 'S'.repeat(31), keywords: 'k'.repeat(101), marketingUrl: 'nope' },
    });
    expect(res.isError).toBe(true);
    expect(res.data.error.details).toEqual([
      { field: 'name', message: 'must be at least 2 characters (has 1)', limit: 2, length: 1 },
      { field: 'subtitle', message: 'must be at most 30 characters (has 31)', limit: 30, length: 31 },
      { field: 'keywords', message: 'must be at most 100 characters (has 101)', limit: 100, length: 101 },
      { field: 'marketingUrl', message: 'must be an http(s) URL' },
    ]);
    const project = await call(client, 'create_project', {
      name: ' ',
      appStoreAppId: 'x1',
      playStorePackageName: 'nope',
    });
    expect(project.data.error.details.map((d: { field: string }) => d.field)).toEqual([
      'name',
      'appStoreAppId',
      'playStorePackageName',
    ]);
  });

  it('tells an agent the valid locale codes, and suggests the nearest for a wrong one', async () => {
    const client = await connect(actors.viewer.apiKey);
    const projectId = (
      await h.given.project(actors.admin, { appStoreAppId: '9', playStorePackageName: 'com.l.c' })
    ).id;
    await actors.admin.api.patch(`/api/v1/projects/${projectId}/listings/playstore/ja-JP`, {
      title: 'Tenki',
    });
    const listed = await call(client, 'list_locales', { projectId });
    expect(listed.data.stores.appstore).toContainEqual({ code: 'zh-Hans', name: 'Simplified Chinese' });
    expect(listed.data.stores.playstore).toContainEqual({ code: 'iw-IL', name: 'Hebrew (Israel)' });
    expect(listed.data.stores.appstore).toHaveLength(50);
    expect(listed.data.stores.playstore).toHaveLength(87);
    expect(listed.data.common).toContain('de-DE');
    expect(listed.data.project).toEqual({ appstore: [], playstore: ['ja-JP'] });
    const member = await connect(actors.member.apiKey);
    const wrong = await call(member, 'update_listing', {
      projectId,
      store: 'playstore',
      locale: 'ja',
      fields: { title: 'x' },
    });
    expect(wrong.data.error.details[0].message).toBe(
      '"ja" is not a Google Play locale code; did you mean ja-JP?',
    );
    const lower = await call(member, 'update_listing', {
      projectId,
      store: 'appstore',
      locale: 'de-de',
      fields: { name: 'xx' },
    });
    expect(lower.data.error.details[0].message).toBe(
      '"de-de" is not an App Store locale code; did you mean de-DE?',
    );
  });

  it('runs the full loop: copy, history and revert, approval bound to the diff hash, operations, fastlane', async () => {
    await actors.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    try {
      const member = await connect(actors.member.apiKey);
      const admin = await connect(actors.admin.apiKey);
      const projectId = (
        await h.given.project(actors.member, { appStoreAppId: '9', playStorePackageName: 'com.l.o' })
      ).id;
      await call(member, 'update_listing', {
        projectId,
        store: 'appstore',
        locale: 'en-US',
        fields: { name: 'Weather', subtitle: 'Rain' },
      });
      const copied = await call(member, 'copy_listing', {
        projectId,
        from: { store: 'appstore', locale: 'en-US' },
        to: { store: 'playstore' },
      });
      expect(copied.isError).toBe(false);
      expect(copied.data.listing.fields.title.value).toBe('Weather');

      await call(member, 'update_listing', {
        projectId,
        store: 'appstore',
        locale: 'en-US',
        fields: { subtitle: 'Snow' },
      });
      const history = await call(member, 'get_history', { projectId, store: 'appstore', locale: 'en-US' });
      const snowEntry = history.data.entries.find((e: any) => e.new === 'Snow');
      const reverted = await call(member, 'revert_field', {
        projectId,
        store: 'appstore',
        locale: 'en-US',
        historyId: snowEntry.id,
      });
      expect(reverted.data.listing.fields.subtitle.value).toBe('Rain');

      const diff = await call(member, 'get_diff', { projectId });
      await call(member, 'update_listing', {
        projectId,
        store: 'appstore',
        locale: 'en-US',
        fields: { subtitle: 'Sun' },
      });
      const stale = await call(admin, 'approve_changes', { projectId, hash: diff.data.hash });
      expect(stale.isError).toBe(true);
      expect(stale.data.error.code).toBe('CONFLICT');
      const current = await call(member, 'get_diff', { projectId });
      const asked = await call(member, 'request_approval', { projectId, note: 'Sun, not snow' });
      expect(asked.data.request).toMatchObject({ hash: current.data.hash, note: 'Sun, not snow' });
      const waiting = await call(admin, 'list_approval_requests', { projectId });
      expect(waiting.data.requests.map((r: any) => r.id)).toEqual([asked.data.request.id]);
      const approved = await call(admin, 'approve_changes', { projectId, hash: current.data.hash });
      expect((await call(admin, 'list_approval_requests', { projectId })).data.requests).toEqual([]);
      expect(approved.data).toMatchObject({ hash: current.data.hash, approvedBy: actors.admin.id });
      expect((await call(member, 'get_diff', { projectId })).data.approval.approved).toBe(true);

      await call(member, 'sync_project', { projectId });
      const operations = await call(member, 'list_operations', { projectId });
      expect(operations.data.operations.map((o: any) => o.kind)).toEqual(['sync']);

      const exported = await call(member, 'export_fastlane', { projectId });
      expect(exported.data.files).toMatchObject({
        'fastlane/metadata/en-US/subtitle.txt': 'Sun',
        'fastlane/metadata/android/en-US/title.txt': 'Weather',
      });
      const imported = await call(member, 'import_fastlane', {
        projectId,
        files: { 'fastlane/metadata/fr-FR/name.txt': 'Météo', 'fastlane/screenshots/en-US/1.png': 'x' },
      });
      expect(imported.data).toMatchObject({ imported: [{ store: 'appstore', locale: 'fr-FR', fields: 1 }] });
    } finally {
      await actors.admin.api.patch('/api/v1/organization', { settings: { requireApproval: false } });
    }
  });
});
