/** Listing texts: read, edit, compare, copy, history, approval; and the project-listings resource. */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import { type FieldEdits } from '../../modules/listings/index.js';
import type { Services } from '../../services.js';
import {
  paged,
  run,
  READ,
  WRITE,
  store,
  storeSelection,
  projectId,
  locale,
  listingFields,
} from '../tool-kit.js';

/** One store's listing in one locale and the fields to set: what update_listing writes and validate_listing checks. */
const LISTING_EDIT = {
  projectId,
  store,
  locale,
  fields: listingFields.describe('field name → new text, or null to clear'),
};

export function listingTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { projects, listings, diffs, approvals, approvalRequests } = services;

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
      inputSchema: LISTING_EDIT,
      annotations: { ...WRITE, idempotentHint: true },
    },
    (args) =>
      run(ctx, () =>
        listings.update(ctx, args.projectId, args.store, args.locale, args.fields as FieldEdits),
      ),
  );

  server.registerTool(
    'validate_listing',
    {
      title: 'Check listing texts without saving them',
      description:
        'The checks update_listing makes — every problem at once, each with its field, limit and length — without ' +
        'writing anything; answers the advice (warnings) the listing would get. Draft, validate, then update.',
      inputSchema: LISTING_EDIT,
      annotations: READ,
    },
    (args) =>
      run(ctx, () =>
        listings.validate(ctx, args.projectId, args.store, args.locale, args.fields as FieldEdits),
      ),
  );

  server.registerTool(
    'delete_locale',
    {
      title: 'Delete a locale',
      description:
        'Removes one store’s listing in one locale here. If the store has it, only a push with prune: true removes ' +
        'it there (`pendingStoreRemoval`).',
      inputSchema: { projectId, store, locale },
      annotations: { ...WRITE, destructiveHint: true },
    },
    (args) => run(ctx, () => listings.remove(ctx, args.projectId, args.store, args.locale)),
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
        paged(args, (page) => listings.history(ctx, args.projectId, args.store, args.locale, page)),
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
    'request_approval',
    {
      title: 'Ask an admin to approve the pending changes',
      description:
        'Members and admins. Asks the admins to approve the pending changes as they stand now, with an optional ' +
        'note; they see the request until an approval, or a new change, closes it. Refused when nothing is ' +
        'pending or the changes are approved already.',
      inputSchema: {
        projectId,
        note: z.string().max(2000).optional().describe('What the approver should know'),
      },
      annotations: WRITE,
    },
    (args) =>
      run(ctx, async () => ({
        request: await approvalRequests.request(ctx, args.projectId, {
          ...(args.note !== undefined && { note: args.note }),
        }),
      })),
  );

  server.registerTool(
    'list_approval_requests',
    {
      title: 'List open approval requests',
      description:
        "The project's requests still waiting for an admin, oldest first: who asked, their note, and what the " +
        'pending changes hold per kind.',
      inputSchema: { projectId },
      annotations: READ,
    },
    (args) => run(ctx, async () => ({ requests: await approvalRequests.list(ctx, args.projectId) })),
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
}
