/**
 * The README's walk-through as a TypeScript client would write it: openapi-fetch over the types
 * openapi-typescript generates from this instance's OpenAPI document. test/typed-client.test.ts
 * generates `./appmeta-api.js` next to a copy of this file, compiles both strictly and runs them:
 * a route, body or query the document describes wrongly fails the compile or the call.
 *
 * Outside tsconfig and ESLint on purpose: the types it imports exist only while the test runs.
 */
import createClient from 'openapi-fetch';
import type { paths } from './appmeta-api.js';

export interface StoreCredentials {
  appstore: { issuerId: string; keyId: string; privateKey: string };
  playstore: { serviceAccount: Record<string, unknown> };
}

/** Every call answers its data; an error envelope throws with the operation and the error. */
function data<D extends { data: unknown }>(
  operation: string,
  result: { data?: D; error?: unknown },
): D['data'] {
  if (result.data === undefined) throw new Error(`${operation}: ${JSON.stringify(result.error)}`);
  return result.data.data;
}

/** A sync or push sent without `Prefer: respond-async` answers its result, never a queued operation. */
function ranNow<U extends object>(operation: string, result: U): Exclude<U, { operation: unknown }> {
  if ('operation' in result) throw new Error(`${operation}: queued instead of run`);
  return result as Exclude<U, { operation: unknown }>;
}

export async function runReadmeCalls(baseUrl: string, adminKey: string, credentials: StoreCredentials) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${adminKey}` } });
  const anonymous = createClient<paths>({ baseUrl });

  // Projects: create, list, read, update, delete; a read after the delete is the error envelope.
  const created = data(
    'projects.create',
    await api.POST('/api/v1/projects', {
      body: { name: 'Weather Pro', appStoreAppId: '1234567890', playStorePackageName: 'com.example.weather' },
    }),
  );
  const projectId = created.projectId;
  const list = data('projects.list', await api.GET('/api/v1/projects'));
  const read = data(
    'projects.get',
    await api.GET('/api/v1/projects/{projectId}', { params: { path: { projectId } } }),
  );
  const scratch = data('projects.create', await api.POST('/api/v1/projects', { body: { name: 'Scratch' } }));
  const updated = data(
    'projects.update',
    await api.PATCH('/api/v1/projects/{projectId}', {
      params: { path: { projectId: scratch.projectId } },
      body: { name: 'Scratch+', playStorePackageName: null },
    }),
  );
  const deleted = data(
    'projects.delete',
    await api.DELETE('/api/v1/projects/{projectId}', { params: { path: { projectId: scratch.projectId } } }),
  );
  const gone = await api.GET('/api/v1/projects/{projectId}', {
    params: { path: { projectId: scratch.projectId } },
  });
  const goneCode: string | undefined = gone.error?.error.code;

  // Team: invite, open and accept the link (no key), change the new member's role.
  const invite = data(
    'invites.create',
    await api.POST('/api/v1/organization/members', { body: { email: 'dana@example.com', role: 'viewer' } }),
  );
  const preview = data(
    'dashboard.invites.get',
    await anonymous.GET('/api/dashboard/invites/{inviteId}', {
      params: { path: { inviteId: invite.inviteId } },
    }),
  );
  const accepted = data(
    'dashboard.invites.accept',
    await anonymous.POST('/api/dashboard/invites/{inviteId}/accept', {
      params: { path: { inviteId: invite.inviteId } },
      body: { name: 'Dana' },
    }),
  );
  const promoted = data(
    'members.updateRole',
    await api.PATCH('/api/v1/organization/members/{memberId}', {
      params: { path: { memberId: accepted.member.id } },
      body: { role: 'member' },
    }),
  );
  const members = data('members.list', await api.GET('/api/v1/organization/members'));
  const key = data('apiKeys.create', await api.POST('/api/v1/api-keys'));

  // Stores: credentials, verify, the first sync.
  data(
    'credentials.setAppStore',
    await api.PUT('/api/v1/organization/credentials/appstore', { body: credentials.appstore }),
  );
  data(
    'credentials.setPlayStore',
    await api.PUT('/api/v1/organization/credentials/playstore', { body: credentials.playstore }),
  );
  const verified = data(
    'credentials.verify',
    await api.POST('/api/v1/organization/credentials/{store}/verify', {
      params: { path: { store: 'playstore' } },
    }),
  );
  const synced = ranNow(
    'projects.sync',
    data(
      'projects.sync',
      await api.POST('/api/v1/projects/{projectId}/sync', { params: { path: { projectId } } }),
    ),
  );
  // Listings: edit, copy to the other store, the diff, a field's history, the locales; a dry run.
  const listing = { params: { path: { projectId, store: 'appstore' as const, locale: 'en-US' } } };
  const edited = data(
    'listings.update',
    await api.PATCH('/api/v1/projects/{projectId}/listings/{store}/{locale}', {
      ...listing,
      body: { name: 'Weather Pro', subtitle: 'Radar maps and rain alerts' },
    }),
  );
  const copied = data(
    'listings.copy',
    await api.POST('/api/v1/projects/{projectId}/listings/copy', {
      params: { path: { projectId } },
      body: { from: { store: 'appstore', locale: 'en-US' }, to: { store: 'playstore' } },
    }),
  );
  const diff = data(
    'listings.diff',
    await api.GET('/api/v1/projects/{projectId}/diff', { params: { path: { projectId } } }),
  );
  const history = data(
    'listings.history',
    await api.GET('/api/v1/projects/{projectId}/listings/{store}/{locale}/history', listing),
  );
  const locales = data(
    'locales.list',
    await api.GET('/api/v1/locales', { params: { query: { projectId } } }),
  );

  const dryRun = ranNow(
    'projects.push',
    data(
      'projects.push',
      await api.POST('/api/v1/projects/{projectId}/push', {
        params: { path: { projectId } },
        body: { dryRun: true },
      }),
    ),
  );

  // Approvals: required by the organization, given for the diff as reviewed, then the push.
  data(
    'organization.update',
    await api.PATCH('/api/v1/organization', { body: { settings: { requireApproval: true } } }),
  );
  const reviewed = data(
    'listings.diff',
    await api.GET('/api/v1/projects/{projectId}/diff', { params: { path: { projectId } } }),
  );
  const approval = data(
    'listings.approve',
    await api.POST('/api/v1/projects/{projectId}/approvals', {
      params: { path: { projectId } },
      body: { hash: reviewed.hash },
    }),
  );
  const pushed = ranNow(
    'projects.push',
    data(
      'projects.push',
      await api.POST('/api/v1/projects/{projectId}/push', { params: { path: { projectId } } }),
    ),
  );
  const operations = data(
    'projects.operations',
    await api.GET('/api/v1/projects/{projectId}/operations', { params: { path: { projectId } } }),
  );

  // fastlane: export as tar.gz, import the same archive back.
  const exported = await api.GET('/api/v1/projects/{projectId}/export', {
    params: { path: { projectId }, query: { archive: 'tar.gz' } },
    parseAs: 'blob',
  });
  if (exported.data === undefined) throw new Error(`listings.export: ${JSON.stringify(exported.error)}`);
  const archive: Blob = exported.data;
  const imported = data(
    'listings.import',
    await api.POST('/api/v1/projects/{projectId}/import', {
      params: { path: { projectId } },
      body: archive,
      bodySerializer: (body) => body,
      headers: { 'Content-Type': 'application/gzip' },
    }),
  );
  const audit = data('auditLog.list', await api.GET('/api/v1/organization/audit-log'));

  return {
    projectId,
    list,
    read,
    updated,
    deleted,
    goneCode,
    preview,
    accepted,
    promoted,
    members,
    key,
    edited,
    copied,
    diff,
    history,
    locales,
    verified,
    synced,
    dryRun,
    approval,
    pushed,
    operations,
    archiveBytes: archive.size,
    imported,
    audit,
  };
}
