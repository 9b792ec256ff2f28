/** App details and App Review information (design.md §19). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, WRITE, store, projectId } from '../tool-kit.js';

const text = z.string().max(4000).nullable().optional();

export function detailTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { details } = services;

  server.registerTool(
    'get_details',
    {
      title: "Get a store's app details and App Review information",
      description:
        'App Store: copyright, primaryCategory, secondaryCategory and review (contact, demo account, notes); ' +
        'Google Play: contactEmail, contactPhone, contactWebsite, defaultLanguage. Each with its state against the ' +
        'store. The demo account password shows only as {"set": true|false}.',
      inputSchema: { projectId, store },
      annotations: READ,
    },
    ({ projectId: id, store: which }) => run(ctx, () => details.get(ctx, id, which)),
  );

  server.registerTool(
    'update_details',
    {
      title: "Update a store's app details",
      description:
        'details: the fields to change (App Store review fields under review: contactFirstName, contactLastName, ' +
        'contactPhone with + and the country code, contactEmail, demoAccountName, demoAccountPassword (admins only), ' +
        'demoAccountRequired, notes). Categories are App Store ids (WEATHER, PRODUCTIVITY, ...); every problem ' +
        'comes back at once. Pushed with push_project.',
      inputSchema: {
        projectId,
        store,
        details: z.object({
          copyright: text,
          primaryCategory: text,
          secondaryCategory: text,
          review: z
            .object({
              contactFirstName: text,
              contactLastName: text,
              contactPhone: text,
              contactEmail: text,
              demoAccountName: text,
              demoAccountPassword: z.string().max(200).nullable().optional(),
              demoAccountRequired: z.boolean().nullable().optional(),
              notes: text,
            })
            .optional(),
          contactEmail: text,
          contactPhone: text,
          contactWebsite: text,
          defaultLanguage: text,
        }),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, store: which, details: body }) => run(ctx, () => details.update(ctx, id, which, body)),
  );
}
