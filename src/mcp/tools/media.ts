/**
 * Screenshots and app previews: an agent lists, uploads (as base64, bounded), orders, copies and
 * removes them. Large files (videos) stay with REST, the CLI and the dashboard.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { paged, run, READ, WRITE, store, projectId, locale } from '../tool-kit.js';

/** The largest file upload_screenshot takes (an MCP request is JSON: the /mcp route's body limit allows it). */
export const UPLOAD_MAX_BYTES = 8 * 1024 * 1024;

/** A slot's type, as both stores name them. */
const slotType = z
  .string()
  .max(40)
  .describe(
    'App Store display type (APP_IPHONE_67, ...) or PREVIEW_<type>; Play image type (phoneScreenshots, icon, ...)',
  );

/** A custom product page's slots rather than the default page's (App Store, from list_product_pages). */
const productPage = z
  .string()
  .max(100)
  .optional()
  .describe("A custom product page's id; absent: the default page");

export function mediaTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { media } = services;

  server.registerTool(
    'list_media',
    {
      title: 'List screenshots and previews',
      description:
        "A project's media slots (store, locale, slot type) with their items in order: id, sha256, size in pixels, " +
        'bytes, file name, and the slot state against the store (modified when the files or their order differ).',
      inputSchema: { projectId, store: store.optional(), locale: locale.optional(), productPage },
      annotations: READ,
    },
    ({ projectId: id, ...filter }) => run(ctx, () => media.list(ctx, id, filter)),
  );

  server.registerTool(
    'reorder_media',
    {
      title: 'Reorder a media slot',
      description: 'Sets the order of a slot; items must list every item id of the slot exactly once.',
      inputSchema: {
        projectId,
        store,
        locale,
        slotType,
        productPage,
        items: z.array(z.string().max(100)).max(50),
      },
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
        from: z.object({ store, locale, productPage }),
        to: z.object({ store, locale: z.string().max(20).optional(), productPage }),
        slotTypes: z.array(z.string().max(80)).max(60).optional(),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, ...input }) => run(ctx, () => media.copy(ctx, id, input)),
  );

  server.registerTool(
    'upload_screenshot',
    {
      title: 'Upload a screenshot',
      description:
        `Adds an image (base64, at most ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB decoded) at the end of a slot, checked as ` +
        'an upload over REST is: format, pixel size for the slot, count. Videos and larger files go through REST ' +
        '(POST …/media/:store/:locale/:slotType) or the CLI.',
      inputSchema: {
        projectId,
        store,
        locale,
        slotType,
        productPage,
        fileName: z.string().min(1).max(200).describe('e.g. home.png: its extension names the format'),
        base64: z
          .string()
          .max(Math.ceil(UPLOAD_MAX_BYTES / 3) * 4)
          .describe('The file, base64-encoded'),
      },
      annotations: WRITE,
    },
    ({ projectId: id, fileName, base64, ...slot }) =>
      run(ctx, async () => {
        const bytes = Buffer.from(base64, 'base64');
        const result = await media.upload(ctx, id, slot, {
          open: async () => ({ stream: Readable.from([bytes]), fileName }),
        });
        // As REST answers it: the item, with what it replaced and what could not be verified.
        return { ...result.item, replaced: result.replaced, notVerified: result.notVerified };
      }),
  );

  server.registerTool(
    'remove_media',
    {
      title: 'Remove a screenshot or preview',
      description: 'Removes one item from its slot (revert_media can bring it back).',
      inputSchema: { projectId, store, locale, slotType, productPage, itemId: z.string().max(100) },
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
        productPage,
        limit: z.number().int().min(1).max(100).optional(),
        offset: z.number().int().min(0).optional(),
      },
      annotations: READ,
    },
    ({ projectId: id, limit, offset, ...slot }) =>
      run(ctx, () => paged({ limit, offset }, (page) => media.history(ctx, id, slot, page))),
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
        productPage,
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
}
