/**
 * Approval requests (design.md §15): a member asks an admin to approve the pending changes with a
 * note; the admin sees what waits; an approval or a new change closes the request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;
let member: Actor;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
  member = await h.given.member(org, 'member');
});
afterAll(() => h.close());

/** A project whose App Store en-US listing the member has edited: changes are pending. */
async function editedProject(): Promise<string> {
  const project = (await h.given.project(org.admin, { appStoreAppId: '1234567890' })).id;
  const res = await member.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
    name: 'Weather',
    subtitle: 'Rain',
  });
  expect(res.status).toBe(200);
  return project;
}

const requestsOf = async (project: string) => {
  const res = await org.admin.api.get(`/api/v1/projects/${project}/approval-requests`);
  expect(res.status).toBe(200);
  return res.body.data.requests as any[];
};

describe('POST /projects/:projectId/approval-requests', () => {
  it('records what the member asks about, for the admin to see, with an event and an audit entry', async () => {
    const project = await editedProject();
    const diff = (await member.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    const res = await member.api.post(`/api/v1/projects/${project}/approval-requests`, {
      note: '  New subtitle for the launch  ',
    });
    expect(res.status).toBe(201);
    const expected = {
      id: expect.stringMatching(/^areq_/),
      projectId: project,
      hash: diff.hash,
      note: 'New subtitle for the launch',
      requestedBy: { memberId: member.id, name: expect.stringMatching(/^member /) },
      createdAt: expect.stringMatching(/Z$/),
      changes: { fields: 2, media: 0, releaseNotes: 0, products: 0, removedLocales: 0 },
    };
    expect(res.body.data.request).toEqual(expected);
    expect(await requestsOf(project)).toEqual([expected]);

    const [event] = await h.db.kysely
      .selectFrom('events')
      .select(['type', 'data'])
      .where('organization_id', '=', org.id)
      .where('type', '=', 'approval.requested')
      .where('data', 'like', `%${res.body.data.request.id}%`)
      .execute();
    expect(JSON.parse(event!.data)).toMatchObject({
      projectId: project,
      requestId: res.body.data.request.id,
      hash: diff.hash,
      requestedBy: member.id,
      note: 'New subtitle for the launch',
    });
    const audit = await org.admin.api.get(
      `/api/v1/organization/audit-log?action=approvalRequests.create&projectId=${project}`,
    );
    expect(audit.body.data.entries[0]).toMatchObject({
      actor: { memberId: member.id },
      details: { hash: diff.hash, note: 'New subtitle for the launch' },
    });
  });

  it('is closed by an approval of the changes', async () => {
    const project = await editedProject();
    await member.api.post(`/api/v1/projects/${project}/approval-requests`, {});
    expect(await requestsOf(project)).toHaveLength(1);
    expect((await org.admin.api.post(`/api/v1/projects/${project}/approvals`)).status).toBe(201);
    expect(await requestsOf(project)).toEqual([]);
    const [row] = await h.db.kysely
      .selectFrom('approval_requests')
      .selectAll()
      .where('project_id', '=', project)
      .execute();
    expect(row).toMatchObject({ status: 'approved', closed_by: org.admin.id });
  });

  it('is closed by a new change: the admin is never asked about changes that are gone', async () => {
    const project = await editedProject();
    await member.api.post(`/api/v1/projects/${project}/approval-requests`, { note: 'v1' });
    await member.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { subtitle: 'Sun' });
    expect(await requestsOf(project)).toEqual([]);
    const [row] = await h.db.kysely
      .selectFrom('approval_requests')
      .selectAll()
      .where('project_id', '=', project)
      .execute();
    expect(row).toMatchObject({ status: 'superseded', closed_at: expect.any(String) });
    // Asking again is about the changes as they now stand.
    const again = await member.api.post(`/api/v1/projects/${project}/approval-requests`, { note: 'v2' });
    expect((await requestsOf(project)).map((r) => r.id)).toEqual([again.body.data.request.id]);
  });

  it('refuses when nothing is pending (400) or the changes are approved already (409)', async () => {
    const empty = (await h.given.project(org.admin, { appStoreAppId: '1234567890' })).id;
    const none = await member.api.post(`/api/v1/projects/${empty}/approval-requests`, {});
    expect(none.status).toBe(400);
    expect(none.body.error.message).toContain('no pending changes');

    const project = await editedProject();
    await org.admin.api.post(`/api/v1/projects/${project}/approvals`);
    const approved = await member.api.post(`/api/v1/projects/${project}/approval-requests`, {});
    expect(approved.status).toBe(409);
    expect(approved.body.error.code).toBe('CONFLICT');
  });

  it('refuses a note over 2,000 characters, naming the field', async () => {
    const project = await editedProject();
    const res = await member.api.post(`/api/v1/projects/${project}/approval-requests`, {
      note: 'x'.repeat(2001),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('note');
  });
});
