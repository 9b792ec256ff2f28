/**
 * The MCP server behind `{PUBLIC_URL}/mcp` (Streamable HTTP; routes.ts serves it). Stateless: each
 * POST gets a server bound to the caller's request context, so tools run with the same API key, role,
 * organization scope and rate limit as REST. Every tool is a thin adapter over a domain service.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, invalidField } from '../errors.js';
import type { OperationId, RequestContext } from '../modules/access/index.js';
import { APPSTORE_FIELDS, PLAYSTORE_FIELDS, type FieldEdits } from '../modules/listings/index.js';
import { STORE_SELECTIONS, STORES } from '../shared/stores.js';
import type { Services } from '../services.js';

/**
 * Every listing field of both stores, and nothing else: an unknown name (also "constructor" or
 * "__proto__") is refused by name before the tool runs.
 */
const listingFields = z.strictObject(
  Object.fromEntries(
    Object.entries({ ...APPSTORE_FIELDS, ...PLAYSTORE_FIELDS }).map(([name, rule]) => [
      name,
      z.string().max(20_000).nullable().optional().describe(rule.label),
    ]),
  ),
);

const store = z.enum(STORES).describe('appstore (Apple App Store) or playstore (Google Play)');
const storeSelection = z.enum(STORE_SELECTIONS).describe('Which store(s); default both');
const projectId = z.string().max(100).describe('A project id such as proj_...');
const locale = z
  .string()
  .max(20)
  .describe(
    "The store's own locale code: Apple uses e.g. en-US, de-DE, ja, zh-Hans; Google uses en-US, de-DE, ja-JP, zh-CN",
  );

/** Renders a service result as a tool result, and an AppError as a tool error with the REST code. */
async function run(ctx: RequestContext, work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const data = (await work()) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  } catch (error) {
    const appError =
      error instanceof AppError ? error : new AppError('INTERNAL_ERROR', 'Internal server error');
    if (!(error instanceof AppError)) ctx.log.error({ err: error }, 'MCP tool failed');
    const body = {
      error: {
        code: appError.code,
        message: appError.message,
        ...(appError.details && { details: appError.details }),
      },
    };
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: body,
    };
  }
}

/**
 * Every tool and the operations (src/modules/access) it performs: the same operation ids, and so
 * the same role checks, as the REST routes. test/operations.test.ts checks this table.
 */
export const TOOL_OPERATIONS = {
  list_projects: ['projects.list'],
  get_project: ['projects.get'],
  create_project: ['projects.create'],
  update_project: ['projects.update'],
  get_listings: ['listings.list', 'listings.get'],
  update_listing: ['listings.update'],
  get_diff: ['listings.diff'],
  sync_project: ['projects.sync'],
  // A dry run writes nothing: anyone who may read the diff may ask for one.
  push_project: ['projects.push', 'listings.diff'],
  get_operation: ['operations.get'],
  cancel_operation: ['operations.cancel'],
  get_organization: ['organization.get'],
  list_members: ['members.list'],
  list_locales: ['locales.list'],
  copy_listing: ['listings.copy'],
  get_history: ['listings.history'],
  revert_field: ['listings.revert'],
  approve_changes: ['listings.approve'],
  list_operations: ['projects.operations'],
  export_fastlane: ['listings.export'],
  import_fastlane: ['listings.import'],
  list_media: ['media.list'],
  reorder_media: ['media.reorder'],
  copy_media: ['media.copy'],
  remove_media: ['media.delete'],
  get_media_history: ['media.history'],
  revert_media: ['media.revert'],
  list_releases: ['releases.list'],
  create_app_store_version: ['releases.create'],
  get_release_notes: ['releaseNotes.list'],
  update_release_notes: ['releaseNotes.updateAppStore', 'releaseNotes.updatePlay'],
  get_translations: ['translations.status', 'translations.get'],
  machine_translate: ['translations.machine'],
  accept_translations: ['translations.accept'],
} as const satisfies Record<string, readonly OperationId[]>;

/** The resources and the operation that reads each. */
export const RESOURCE_OPERATIONS = { 'project-listings': 'listings.list' } as const satisfies Record<
  string,
  OperationId
>;

const READ = { readOnlyHint: true, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

export function createMcpServer(services: Services, ctx: RequestContext): McpServer {
  const server = new McpServer(
    { name: 'appmeta', version: '1.0.0' },
    {
      instructions:
        'appmeta manages App Store and Google Play listing texts per project, store and locale. Typical flow: ' +
        'list_projects → get_listings → update_listing → get_diff → push_project with dryRun, then without.',
    },
  );
  const {
    projects,
    listings,
    diffs,
    approvals,
    sync,
    push,
    organizations,
    members,
    operations,
    locales,
    fastlane,
    background,
    media,
    releases,
    translations,
    machineTranslation,
  } = services;

  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description: 'Projects of your organization, newest first, paginated (limit 1..100, default 20).',
      inputSchema: {
        limit: z.number().int().min(1).max(100).optional(),
        offset: z.number().int().min(0).optional(),
      },
      annotations: READ,
    },
    (args) => run(ctx, () => projects.list(ctx, { limit: args.limit ?? 20, offset: args.offset ?? 0 })),
  );

  server.registerTool(
    'get_project',
    {
      title: 'Get a project',
      description: 'One project with its store identifiers, locales and last sync time.',
      inputSchema: { projectId },
      annotations: READ,
    },
    (args) => run(ctx, async () => ({ project: await projects.get(ctx, args.projectId) })),
  );

  server.registerTool(
    'create_project',
    {
      title: 'Create a project',
      description:
        'Creates a project for one app. appStoreAppId is the numeric App Store id; playStorePackageName the Android ' +
        'package name (com.example.app). Needs role member or admin; plans limit the number of projects.',
      inputSchema: {
        name: z.string().max(400).describe('1..200 characters'),
        appStoreAppId: z.string().max(20).optional(),
        playStorePackageName: z.string().max(150).optional(),
      },
      annotations: WRITE,
    },
    (args) => run(ctx, async () => ({ project: await projects.create(ctx, args) })),
  );

  server.registerTool(
    'update_project',
    {
      title: 'Update a project',
      description: 'Renames a project or changes its store identifiers; null clears an identifier.',
      inputSchema: {
        projectId,
        name: z.string().max(400).optional(),
        appStoreAppId: z.string().max(20).nullable().optional(),
        playStorePackageName: z.string().max(150).nullable().optional(),
        sourceLocale: z
          .string()
          .max(20)
          .nullable()
          .optional()
          .describe("The locale translations are made from; null follows the organization's defaultLocale"),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, ...patch }) =>
      run(ctx, async () => ({ project: await projects.update(ctx, id, patch) })),
  );

  server.registerTool(
    'get_listings',
    {
      title: 'Get listings',
      description:
        "A project's listing texts. Each field has value (working copy), base (what the store had at the last " +
        'sync/push) and state (unchanged, modified, conflict). Give store and locale for one listing, or neither for all.',
      inputSchema: { projectId, store: store.optional(), locale: locale.optional() },
      annotations: READ,
    },
    (args) =>
      run(ctx, async () =>
        args.store !== undefined && args.locale !== undefined
          ? { listing: await listings.get(ctx, args.projectId, args.store, args.locale) }
          : { listings: await listings.list(ctx, args.projectId) },
      ),
  );

  server.registerTool(
    'update_listing',
    {
      title: 'Update a listing',
      description:
        'Sets listing fields for one store and locale (creates the locale if new); null clears a field. App Store ' +
        'fields: name (2-30), subtitle (30), description (4000), keywords (100, comma separated), promotionalText (170), ' +
        'whatsNew (4000), marketingUrl, supportUrl, privacyPolicyUrl. Google Play fields: title (30), shortDescription ' +
        '(80), fullDescription (4000), video. Limits count Unicode code points. Returns the listing and warnings.',
      inputSchema: {
        projectId,
        store,
        locale,
        fields: listingFields.describe('field name → new text, or null to clear'),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    (args) =>
      run(ctx, () =>
        listings.update(ctx, args.projectId, args.store, args.locale, args.fields as FieldEdits),
      ),
  );

  server.registerTool(
    'get_diff',
    {
      title: 'Get pending changes',
      description:
        'What a push would change: per store, per locale, per field old (store) → new (working copy); inSync when ' +
        'nothing is pending. Also says whether the changes are approved, where the organization requires approval.',
      inputSchema: { projectId, store: storeSelection.optional() },
      annotations: READ,
    },
    (args) => run(ctx, () => diffs.diff(ctx, args.projectId, args.store)),
  );

  server.registerTool(
    'sync_project',
    {
      title: 'Sync from the stores',
      description:
        'Pulls the live listings from the store(s) and merges them: fields not edited here take the store value; ' +
        'fields changed on both sides are reported as conflicts and keep the local value.',
      inputSchema: {
        projectId,
        store: storeSelection.optional(),
        background: z
          .boolean()
          .optional()
          .describe('Run in the background: answers {operation} at once; follow it with get_operation'),
      },
      annotations: { ...WRITE, openWorldHint: true },
    },
    ({ projectId: id, background: inBackground, ...input }) =>
      run(ctx, async () =>
        inBackground === true
          ? { operation: await background.start(ctx, id, { kind: 'sync', input }) }
          : sync.sync(ctx, id, input),
      ),
  );

  server.registerTool(
    'push_project',
    {
      title: 'Push to the stores',
      description:
        'Writes changed fields to the store(s); never deletes a store locale. Use dryRun: true first to see exactly ' +
        'what would be written without writing anything. locales narrows the push to some locales.',
      inputSchema: {
        projectId,
        store: storeSelection.optional(),
        locales: z.array(locale).max(200).optional(),
        dryRun: z.boolean().optional().describe('Only report what would be pushed'),
        prune: z
          .boolean()
          .optional()
          .describe(
            'Default false. When true, also deletes from the store every locale that was deleted in appmeta (shown in ' +
              "get_diff's removedLocales): that locale's whole listing — all its texts — is removed from the store. " +
              'Nothing else is ever deleted.',
          ),
        changesNotSentForReview: z
          .boolean()
          .optional()
          .describe('Google Play: do not send the changes for review'),
        background: z
          .boolean()
          .optional()
          .describe('Run in the background: answers {operation} at once; follow it with get_operation'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ projectId: id, background: inBackground, ...options }) =>
      run(ctx, async () => {
        const { dryRun, ...input } = options;
        return inBackground === true && dryRun !== true
          ? { operation: await background.start(ctx, id, { kind: 'push', input }) }
          : push.push(ctx, id, options);
      }),
  );

  server.registerTool(
    'get_operation',
    {
      title: 'Get a sync or push',
      description:
        'Status (queued, running, succeeded, partial, failed, cancelled), progress {done, total} per store, and once ' +
        'finished the outcome: the same result the synchronous call answers.',
      inputSchema: { projectId, operationId: z.string().max(64) },
      annotations: READ,
    },
    (args) =>
      run(ctx, async () => ({ operation: await background.get(ctx, args.projectId, args.operationId) })),
  );

  server.registerTool(
    'cancel_operation',
    {
      title: 'Cancel a sync or push',
      description:
        'A queued operation ends at once; a running one stops before its next store write (what was written stays ' +
        'written and is reported).',
      inputSchema: { projectId, operationId: z.string().max(64) },
      annotations: WRITE,
    },
    (args) =>
      run(ctx, async () => ({ operation: await background.cancel(ctx, args.projectId, args.operationId) })),
  );

  server.registerTool(
    'get_organization',
    {
      title: 'Get the organization',
      description:
        'Your organization: name, plan, member count and settings (defaultLocale, requireApproval, allowedDomains).',
      inputSchema: {},
      annotations: READ,
    },
    () => run(ctx, () => organizations.get(ctx)),
  );

  server.registerTool(
    'list_members',
    {
      title: 'List members',
      description: 'Members of your organization with their roles (admin, member, viewer).',
      inputSchema: {},
      annotations: READ,
    },
    () => run(ctx, async () => ({ members: await members.list(ctx) })),
  );

  server.registerTool(
    'list_locales',
    {
      title: 'List locale codes',
      description:
        "Each store's locale codes with their English names (Apple uses e.g. ja, zh-Hans; Google ja-JP, zh-CN: codes " +
        'stay store-native), the codes both stores accept as written, and, given projectId, the locales that project ' +
        'has in each store. Use it before update_listing when unsure of a code.',
      inputSchema: { projectId: projectId.optional() },
      annotations: READ,
    },
    (args) => run(ctx, () => locales.list(ctx, args.projectId)),
  );

  server.registerTool(
    'copy_listing',
    {
      title: 'Copy a listing',
      description:
        'Copies texts from one store/locale to another (creates the target locale if new). Between stores the fields ' +
        'map: App Store name ↔ Play title, subtitle ↔ shortDescription, description ↔ fullDescription; the locale ' +
        'code maps too (zh-Hans → zh-CN) unless to.locale is given. Validated like update_listing, all or nothing. ' +
        'Without fields, every mapped field with text is copied.',
      inputSchema: {
        projectId,
        from: z.object({ store, locale }),
        to: z.object({ store, locale: locale.optional() }),
        fields: z
          .array(z.string().max(40))
          .max(20)
          .optional()
          .describe('Source field names; default all mapped'),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, ...input }) => run(ctx, () => listings.copy(ctx, id, input)),
  );

  // Media: an agent lists, orders, copies and removes screenshots and previews; uploading
  // binaries stays with REST, the CLI and the dashboard.
  const slotType = z
    .string()
    .max(40)
    .describe(
      'App Store display type (APP_IPHONE_67, ...) or PREVIEW_<type>; Play image type (phoneScreenshots, icon, ...)',
    );

  server.registerTool(
    'list_media',
    {
      title: 'List screenshots and previews',
      description:
        "A project's media slots (store, locale, slot type) with their items in order: id, sha256, size in pixels, " +
        'bytes, file name, and the slot state against the store (modified when the files or their order differ).',
      inputSchema: { projectId, store: store.optional(), locale: locale.optional() },
      annotations: READ,
    },
    ({ projectId: id, ...filter }) => run(ctx, () => media.list(ctx, id, filter)),
  );

  server.registerTool(
    'reorder_media',
    {
      title: 'Reorder a media slot',
      description: 'Sets the order of a slot; items must list every item id of the slot exactly once.',
      inputSchema: { projectId, store, locale, slotType, items: z.array(z.string().max(100)).max(50) },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, items, ...slot }) =>
      run(ctx, async () => ({ slot: await media.reorder(ctx, id, slot, items) })),
  );

  server.registerTool(
    'copy_media',
    {
      title: 'Copy media between locales or stores',
      description:
        'Copies slots (the same files, no upload) from one store/locale to another, replacing the target slots. ' +
        'to.locale "*" copies into every locale of the target store. Across stores, App Store iPhone/iPad/TV ' +
        'screenshots go to Play phone/ten-inch/TV screenshots; slotTypes entries "source:target" choose otherwise. ' +
        "Every file is checked against the target slot's rules first; all or nothing.",
      inputSchema: {
        projectId,
        from: z.object({ store, locale }),
        to: z.object({ store, locale: z.string().max(20).optional() }),
        slotTypes: z.array(z.string().max(80)).max(60).optional(),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, ...input }) => run(ctx, () => media.copy(ctx, id, input)),
  );

  server.registerTool(
    'remove_media',
    {
      title: 'Remove a screenshot or preview',
      description: 'Removes one item from its slot (revert_media can bring it back).',
      inputSchema: { projectId, store, locale, slotType, itemId: z.string().max(100) },
      annotations: { ...WRITE, destructiveHint: true },
    },
    ({ projectId: id, itemId, ...slot }) => run(ctx, () => media.remove(ctx, id, slot, itemId)),
  );

  server.registerTool(
    'get_media_history',
    {
      title: 'Get media history',
      description:
        "A slot's changes, newest first: the files (sha256) before and after, source, who and when.",
      inputSchema: {
        projectId,
        store,
        locale,
        slotType,
        limit: z.number().int().min(1).max(100).optional(),
        offset: z.number().int().min(0).optional(),
      },
      annotations: READ,
    },
    ({ projectId: id, limit, offset, ...slot }) =>
      run(ctx, () => media.history(ctx, id, slot, { limit: limit ?? 20, offset: offset ?? 0 })),
  );

  server.registerTool(
    'revert_media',
    {
      title: 'Revert a media slot',
      description:
        'Restores the files and order of a slot before a history entry (to: before, undo) or after it.',
      inputSchema: {
        projectId,
        store,
        locale,
        slotType,
        historyId: z.string().max(100),
        to: z.enum(['before', 'after']).optional(),
      },
      annotations: WRITE,
    },
    ({ projectId: id, historyId, to, ...slot }) =>
      run(ctx, async () => ({
        slot: await media.revert(ctx, id, slot, { historyId, ...(to !== undefined && { to }) }),
      })),
  );

  // Versions and release notes (design.md §13).
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

  server.registerTool(
    'get_translations',
    {
      title: 'Get translation states',
      description:
        'Without locale: the translation matrix, per target locale, store and field its state — missing, outdated ' +
        '(the source changed since it was translated), draft (a machine translation waiting for a member) or ' +
        'current — with counts. With locale: that locale source beside target, the source each was translated ' +
        "from, and drafts with their length against the field's limit.",
      inputSchema: { projectId, locale: locale.optional() },
      annotations: READ,
    },
    (args) =>
      run(ctx, () =>
        args.locale === undefined
          ? translations.status(ctx, args.projectId)
          : translations.get(ctx, args.projectId, args.locale),
      ),
  );

  server.registerTool(
    'machine_translate',
    {
      title: 'Machine-translate into drafts',
      description:
        'Translates source texts with DeepL into drafts for the target locales (by default the missing and outdated ' +
        'fields). Drafts are never pushed until accepted with accept_translations. Keywords stay comma-separated ' +
        'within 100 characters; glossary terms are kept. Provider errors (quota, key, rate limit) are listed per field.',
      inputSchema: {
        projectId,
        targetLocales: z.array(z.string().max(16)).min(1).max(50),
        stores: z.array(store).min(1).max(2).optional(),
        fields: z.array(z.string().max(40)).min(1).max(20).optional(),
        states: z
          .array(z.enum(['missing', 'outdated', 'draft', 'current']))
          .min(1)
          .max(4)
          .optional()
          .describe('Which fields to translate by state; default missing and outdated'),
        formality: z.enum(['more', 'less']).optional(),
      },
      annotations: { ...WRITE, openWorldHint: true },
    },
    ({ projectId: id, ...request }) => run(ctx, () => machineTranslation.translate(ctx, id, request)),
  );

  server.registerTool(
    'accept_translations',
    {
      title: 'Accept machine drafts',
      description:
        "Makes a locale's drafts (all, or of one store and some fields) the listing texts, current. A draft over its " +
        "field's limit is refused when named, skipped otherwise; shorten it with update_listing instead.",
      inputSchema: {
        projectId,
        locale,
        store: store.optional(),
        fields: z.array(z.string().max(40)).min(1).max(20).optional(),
      },
      annotations: WRITE,
    },
    ({ projectId: id, locale: code, ...request }) =>
      run(ctx, () => translations.accept(ctx, id, code, request)),
  );

  server.registerTool(
    'get_history',
    {
      title: 'Get field history',
      description:
        "A listing's change history, newest first: each entry's field, old and new text, source (edit, revert, copy, " +
        'import, sync, push), who and when. An entry id can be given to revert_field.',
      inputSchema: {
        projectId,
        store,
        locale,
        limit: z.number().int().min(1).max(100).optional(),
        offset: z.number().int().min(0).optional(),
      },
      annotations: READ,
    },
    (args) =>
      run(ctx, () =>
        listings.history(ctx, args.projectId, args.store, args.locale, {
          limit: args.limit ?? 20,
          offset: args.offset ?? 0,
        }),
      ),
  );

  server.registerTool(
    'revert_field',
    {
      title: 'Revert a field',
      description:
        "Sets a history entry's field back to its text before that entry (to: before, the default: undo) or after it; " +
        'recorded as a new change and validated like an edit.',
      inputSchema: {
        projectId,
        store,
        locale,
        historyId: z.string().max(100),
        to: z.enum(['before', 'after']).optional(),
      },
      annotations: WRITE,
    },
    ({ projectId: id, store: s, locale: l, ...input }) =>
      run(ctx, () => listings.revert(ctx, id, s, l, input)),
  );

  server.registerTool(
    'approve_changes',
    {
      title: 'Approve pending changes',
      description:
        'Admins only. Approves the pending changes exactly as reviewed: give the hash that get_diff answered. If ' +
        'anything changed since, the approval is refused (CONFLICT) and nothing is approved; read the diff again. ' +
        'Any later edit voids the approval.',
      inputSchema: {
        projectId,
        hash: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .describe('get_diff.hash'),
      },
      annotations: WRITE,
    },
    (args) => run(ctx, () => approvals.approve(ctx, args.projectId, { hash: args.hash })),
  );

  server.registerTool(
    'list_operations',
    {
      title: 'List syncs and pushes',
      description:
        "A project's recorded syncs and pushes, newest first: who, when, stores, locales, status, outcome.",
      inputSchema: {
        projectId,
        limit: z.number().int().min(1).max(100).optional(),
        offset: z.number().int().min(0).optional(),
      },
      annotations: READ,
    },
    (args) =>
      run(ctx, () =>
        operations.list(ctx, args.projectId, { limit: args.limit ?? 20, offset: args.offset ?? 0 }),
      ),
  );

  server.registerTool(
    'export_fastlane',
    {
      title: 'Export as fastlane files',
      description:
        "The project's listing texts (working copies) as the files of fastlane's layouts: " +
        'fastlane/metadata/<locale>/<field>.txt (deliver, App Store) and fastlane/metadata/android/<language>/<field>.txt ' +
        '(supply, Google Play), as a map of path → text.',
      inputSchema: { projectId },
      annotations: READ,
    },
    (args) =>
      run(ctx, async () => ({ files: Object.fromEntries(await fastlane.exportFiles(ctx, args.projectId)) })),
  );

  server.registerTool(
    'import_fastlane',
    {
      title: 'Import fastlane files',
      description:
        'Imports listing texts given as fastlane files (path → text): fastlane/metadata/<locale>/*.txt (App Store) and ' +
        'fastlane/metadata/android/<language>/*.txt (Google Play), as export_fastlane writes them. Validated like ' +
        'update_listing and applied all or nothing; everything else is reported in `skipped` with the reason. When the ' +
        'files hold several fastlane trees, `path` names the one to read.',
      inputSchema: {
        projectId,
        files: z.record(z.string().max(1000), z.string().max(100_000)).describe('path → file text'),
        path: z
          .string()
          .max(1000)
          .optional()
          .describe('The folder to read as the metadata tree ("." for the root of the paths)'),
      },
      annotations: WRITE,
    },
    (args) =>
      run(ctx, () =>
        fastlane.importFiles(ctx, args.projectId, new Map(Object.entries(args.files)), {
          ...(args.path !== undefined && { path: args.path }),
        }),
      ),
  );

  server.registerResource(
    'project-listings',
    new ResourceTemplate('appmeta://projects/{projectId}/listings', {
      list: async () => {
        const page = await projects.list(ctx, { limit: 100, offset: 0 });
        return {
          resources: page.projects.map((p) => ({
            uri: `appmeta://projects/${p.id}/listings`,
            name: `${p.name} listings`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Project listings',
      description: 'All listing texts of a project, as JSON',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = String(variables.projectId);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify({ listings: await listings.list(ctx, id) }),
          },
        ],
      };
    },
  );

  return server;
}

/**
 * Answers one MCP POST on the raw request and response: a server bound to the caller's context and
 * a stateless transport, both closed when the response is.
 */
export async function answerMcp(
  services: Services,
  ctx: RequestContext,
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
): Promise<void> {
  const server = createMcpServer(services, ctx);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
