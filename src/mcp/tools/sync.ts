/** Sync, push and the background operations they run. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { paged, run, READ, WRITE, storeSelection, projectId, locale } from '../tool-kit.js';

export function syncTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { sync, push, operations, background } = services;

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
        include: z
          .array(z.enum(['listings', 'products']))
          .min(1)
          .optional()
          .describe('listings (texts, media, release notes) and/or products (purchase texts); default both'),
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
        include: z
          .array(z.enum(['listings', 'products']))
          .min(1)
          .optional()
          .describe('listings (texts, media, release notes) and/or products (purchase texts); default both'),
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
    (args) => run(ctx, () => paged(args, (page) => operations.list(ctx, args.projectId, page))),
  );
}
