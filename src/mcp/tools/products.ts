/** In-app purchases and subscriptions: their texts per locale (design.md §17). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, WRITE, store, projectId, locale } from '../tool-kit.js';

const productId = z
  .string()
  .min(1)
  .max(200)
  .describe('The store product id (App Store subscription groups: group:<reference name>)');
const text = z.union([z.string().max(4000), z.array(z.string().max(200)).max(10)]).nullable();

export function productTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { products } = services;

  server.registerTool(
    'list_products',
    {
      title: 'List in-app purchases and subscriptions',
      description:
        "Both stores' products as the last sync read them: store, kind (appstore: inAppPurchase, subscription, " +
        'subscriptionGroup; playstore: inAppProduct, subscription), productId, reference name, state, texts per ' +
        'locale, how many texts are pending, and the limits every text is checked against.',
      inputSchema: { projectId, store: store.optional() },
      annotations: READ,
    },
    ({ projectId: id, store: only }) =>
      run(ctx, () => products.list(ctx, id, only === undefined ? {} : { store: only })),
  );

  server.registerTool(
    'get_product',
    {
      title: "Get a product's texts in one locale",
      description: 'Working copy, base (what the store has), state, limit and whether each text is required.',
      inputSchema: { projectId, store, productId, locale },
      annotations: READ,
    },
    ({ projectId: id, ...key }) => run(ctx, () => products.get(ctx, id, key)),
  );

  server.registerTool(
    'update_product',
    {
      title: "Update a product's texts in one locale",
      description:
        'fields: field → text (appstore: name, description; groups: name, customAppName; playstore: title, ' +
        'description, and benefits as a list of up to 4 for subscriptions); null clears an optional text. Every ' +
        'text is checked against the limits first and all problems come back at once. Pushed with push_project.',
      inputSchema: { projectId, store, productId, locale, fields: z.record(z.string().max(40), text) },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, fields, ...key }) => run(ctx, () => products.update(ctx, id, key, fields)),
  );

  server.registerTool(
    'get_product_history',
    {
      title: "Get a product's text history",
      description: 'Changes of one product in one locale, newest first, with who made them.',
      inputSchema: {
        projectId,
        store,
        productId,
        locale,
        limit: z.number().int().min(1).max(100).optional(),
      },
      annotations: READ,
    },
    ({ projectId: id, limit, ...key }) =>
      run(ctx, () => products.history(ctx, id, key, { limit: limit ?? 20, offset: 0 })),
  );

  server.registerTool(
    'revert_product_text',
    {
      title: 'Revert a product text',
      description: 'Sets a product text back to its value before (default) or after a history entry.',
      inputSchema: { projectId, historyId: z.string().max(100), to: z.enum(['before', 'after']).optional() },
      annotations: WRITE,
    },
    ({ projectId: id, historyId, to }) =>
      run(ctx, () => products.revert(ctx, id, { historyId, ...(to !== undefined && { to }) })),
  );

  server.registerTool(
    'copy_product_texts',
    {
      title: "Copy a product's texts to the other store",
      description:
        "Copies a product's texts into its counterpart in the other store: toProductId, else the product " +
        'linked to it, else the one with the same id. Locales and fields are mapped (App Store name ↔ Google Play title, description ↔ ' +
        'description); a text over the target limit is refused, never cut; all or nothing.',
      inputSchema: {
        projectId,
        store: store.describe('The store to copy from'),
        productId,
        toProductId: productId.optional(),
        locales: z.array(locale).max(200).optional(),
      },
      annotations: WRITE,
    },
    ({ projectId: id, store: from, productId: source, toProductId, locales }) =>
      run(ctx, () =>
        products.copy(ctx, id, {
          from: { store: from, productId: source },
          ...(toProductId !== undefined && { to: { productId: toProductId } }),
          ...(locales !== undefined && { locales }),
        }),
      ),
  );
}
