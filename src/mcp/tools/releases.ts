/** App Store versions, Google Play tracks and release notes. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { invalidField } from '../../errors.js';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, WRITE, store, projectId, locale } from '../tool-kit.js';

export function releaseTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { releases } = services;

  server.registerTool(
    'list_releases',
    {
      title: 'List versions and tracks',
      description:
        'App Store versions (version string, state, editable, firstVersion) and Google Play tracks with their ' +
        'releases (name, version codes, status, rollout fraction, notes), as the last sync read them.',
      inputSchema: { projectId },
      annotations: READ,
    },
    ({ projectId: id }) => run(ctx, () => releases.list(ctx, id)),
  );

  server.registerTool(
    'create_app_store_version',
    {
      title: 'Create the next App Store version',
      description:
        "Creates a version in App Store Connect (Prepare for Submission). Refused with the store's reason while an " +
        'unreleased version exists or for a version string used before.',
      inputSchema: { projectId, versionString: z.string().max(32).describe('e.g. 2.4.0') },
      annotations: WRITE,
    },
    ({ projectId: id, versionString }) => run(ctx, () => releases.createVersion(ctx, id, versionString)),
  );

  server.registerTool(
    'get_release_notes',
    {
      title: 'Get release notes',
      description:
        "App Store: What's New per locale of a version (default: the one being prepared). Google Play: notes per " +
        'track release (keyed by its first version code) and language. Each with working copy, base and state.',
      inputSchema: {
        projectId,
        store,
        version: z.string().max(32).optional(),
        track: z.string().max(100).optional(),
        versionCode: z.string().max(20).optional(),
      },
      annotations: READ,
    },
    ({ projectId: id, ...query }) => run(ctx, () => releases.notes(ctx, id, query)),
  );

  server.registerTool(
    'update_release_notes',
    {
      title: 'Update release notes',
      description:
        "App Store (versionString): What's New of the version being prepared (not an app's first), up to 4,000 " +
        'characters. Google Play (track, versionCode): the notes of the release holding that code, up to 500 ' +
        'characters, only in languages with a listing. text null removes. Pushed like listing texts.',
      inputSchema: {
        projectId,
        store,
        locale,
        text: z.string().max(4000).nullable(),
        versionString: z.string().max(32).optional(),
        track: z.string().max(100).optional(),
        versionCode: z.string().max(20).optional(),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, store: target, locale: code, text, versionString, track, versionCode }) =>
      run(ctx, async () => {
        if (target === 'appstore') {
          if (versionString === undefined) throw invalidField('versionString', 'give the App Store version');
          return { result: await releases.updateAppStoreNote(ctx, id, versionString, code, text) };
        }
        if (track === undefined || versionCode === undefined) {
          throw invalidField(
            track === undefined ? 'track' : 'versionCode',
            'give the track and a version code of the release',
          );
        }
        return releases.updatePlayNote(ctx, id, { track, versionCode, locale: code }, text);
      }),
  );
}
