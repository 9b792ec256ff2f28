/**
 * The audit log of design.md §15: entries name who acted and the project, as they were called at
 * the time; the page and the CSV export select the same entries by member, project, action
 * (exact or prefix) and time. That every operation writes an entry is the role matrix's check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;
let member: Actor;
let project: string;
let other: string;

const log = async (query: string) => {
  const res = await org.admin.api.get(`/api/v1/organization/audit-log?limit=100&${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.entries as any[];
};

/** The CSV export as rows of fields (a field may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (quoted) {
      field += c;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else {
      field += c;
    }
  }
  return rows;
}

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization({ name: 'Audited' });
  member = await h.given.member(org, 'member');
  project = (
    await member.api.post('/api/v1/projects', { name: 'Weather, "Pro"', appStoreAppId: '1234567890' })
  ).body.data.projectId;
  other = (await h.given.project(org.admin)).id;
  const listing = `/api/v1/projects/${project}/listings/appstore/en-US`;
  expect((await member.api.patch(listing, { name: 'Weather', subtitle: 'Rain' })).status).toBe(200);
  expect((await member.api.patch(listing, { subtitle: 'Sun' })).status).toBe(200);
  expect((await org.admin.api.patch(`/api/v1/projects/${other}`, { name: 'Renamed' })).status).toBe(200);
});
afterAll(() => h.close());

describe('audit entries', () => {
  it("name the actor and the project as they were then, and keep them after the project's delete", async () => {
    const [edit] = await log(`action=listings.update&projectId=${project}`);
    expect(edit).toMatchObject({
      action: 'listings.update',
      actor: { memberId: member.id, name: expect.stringMatching(/^member /) },
      project: { id: project, name: 'Weather, "Pro"' },
      target: { type: 'listing', id: 'appstore/en-US' },
      details: { fields: ['subtitle'] },
    });
    const doomed = (await h.given.project(org.admin)).id;
    expect((await org.admin.api.delete(`/api/v1/projects/${doomed}`)).status).toBe(200);
    const [deleted] = await log(`action=projects.delete&projectId=${doomed}`);
    expect(deleted.project).toEqual({ id: doomed, name: expect.stringMatching(/^Project /) });
    expect(deleted.actor.name).toBe('Admin');
  });

  it('are organization-wide (project null) for changes outside a project', async () => {
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: false } });
    const [entry] = await log('action=organization.update');
    expect(entry.project).toBeNull();
  });
});

describe('filters', () => {
  it('select by member, project, exact action and action prefix, combined', async () => {
    const byMember = await log(`actor=${member.id}`);
    expect(byMember.length).toBeGreaterThan(0);
    expect(byMember.every((e) => e.actor.memberId === member.id)).toBe(true);
    expect(
      byMember.map((e) => e.action).filter((a) => a.startsWith('listings.') || a.startsWith('projects.')),
    ).toEqual(['listings.update', 'listings.update', 'projects.create']);
    // Their joining is theirs too: the invite accepted, the key and session it gave them.
    expect(byMember.map((e) => e.action)).toContain('invites.accept');

    const inProject = await log(`projectId=${other}`);
    expect(inProject.map((e) => e.action)).toEqual(['projects.update', 'projects.create']);
    expect(inProject.every((e) => e.project.id === other)).toBe(true);

    const prefix = await log('action=projects.');
    expect(prefix.every((e) => e.action.startsWith('projects.'))).toBe(true);
    expect(prefix.map((e) => e.action)).toEqual(
      expect.arrayContaining(['projects.create', 'projects.update']),
    );
    expect(await log(`action=projects.&actor=${member.id}`)).toHaveLength(1);
    // An exact action is not a prefix: "projects" names no operation.
    expect(await log('action=projects')).toEqual([]);
  });

  it('select by time: from (inclusive) to (exclusive)', async () => {
    const all = await log(`projectId=${project}`);
    const oldest = all.at(-1);
    const newest = all[0];
    expect((await log(`projectId=${project}&from=${oldest.createdAt}`)).length).toBe(all.length);
    const before = await log(`projectId=${project}&to=${newest.createdAt}`);
    expect(before.every((e) => e.createdAt < newest.createdAt)).toBe(true);
    expect(await log(`projectId=${project}&from=2999-01-01T00:00:00.000Z`)).toEqual([]);
  });

  it.each([
    ['action', 'action=listings%25', 'is not in the right form'],
    ['from', 'from=yesterday', 'must be a date and time, like 2026-11-28T09:30:00Z'],
    ['to', 'to=2026-13-01', 'must be a date and time'],
  ])('refuse a bad %s with a 400 naming it in plain words', async (field, query, message) => {
    const res = await org.admin.api.get(`/api/v1/organization/audit-log?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ field, message: expect.stringContaining(message) });
    expect(res.body.error.message).not.toMatch(/match (pattern|format)/);
  });
});

describe('GET /api/v1/organization/audit-log.csv', () => {
  it('streams the same entries as the page, with a header row and RFC 4180 quoting', async () => {
    const res = await org.admin.api.get(`/api/v1/organization/audit-log.csv?projectId=${project}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="audit-log.csv"');
    const [header, ...rows] = parseCsv(res.body as string);
    expect(header).toEqual([
      'createdAt',
      'id',
      'action',
      'actorName',
      'actorMemberId',
      'actorKeyId',
      'actorOperator',
      'projectId',
      'projectName',
      'targetType',
      'targetId',
      'details',
    ]);
    const page = await log(`projectId=${project}`);
    expect(rows.map((r) => r[1])).toEqual(page.map((e) => e.id));
    expect(rows[0]![8]).toBe('Weather, "Pro"');
    expect(JSON.parse(rows[0]![11]!)).toEqual(page[0].details);
  });

  it('reads a log longer than one batch, in order, without gaps', async () => {
    const busy = await h.given.organization();
    const target = (await h.given.project(busy.admin)).id;
    for (let i = 0; i < 510; i += 1) {
      await busy.admin.api.patch(`/api/v1/projects/${target}`, { name: `Name ${i}` });
    }
    const res = await busy.admin.api.get('/api/v1/organization/audit-log.csv?action=projects.update');
    const rows = parseCsv(res.body as string).slice(1);
    expect(rows).toHaveLength(510);
    expect(new Set(rows.map((r) => r[1])).size).toBe(510);
    // Newest first: two changes in one millisecond may come in either order, so compare times.
    const times = rows.map((r) => r[0]!);
    expect([...times].sort().reverse()).toEqual(times);
    const names = rows.map((r) => (JSON.parse(r[11]!) as { name: string }).name);
    expect(new Set(names)).toEqual(new Set(Array.from({ length: 510 }, (_, i) => `Name ${i}`)));
  });

  it('is for admins only', async () => {
    const res = await member.api.get('/api/v1/organization/audit-log.csv');
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('auditLog.export');
  });
});
