/** App Store custom product pages and in-app events: their texts per locale (design.md §18). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, WRITE, projectId, locale } from '../tool-kit.js';

const pageId = z.string().min(1).max(100).describe("The custom product page's id (from list_product_pages)");
const eventId = z.string().min(1).max(100).describe("The in-app event's id (from list_app_events)");
const text = (max: number) =>
  z
    .string()
    .max(max * 4)
    .nullable()
    .optional();
const STATES =
  'In a state App Store Connect refuses changes in (a page version in review, an event published) the ' +
  'edit fails naming the state.';

export function marketingTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { marketing } = services;

  server.registerTool(
    'list_product_pages',
    {
      title: 'List custom product pages',
      description:
        "The App Store custom product pages as the last sync read them: name, URL, the newest version's state " +
        'and whether it can be edited (and why not), promotional text per locale, pending texts, and the ' +
        'first screenshots. Their screenshots are media slots of the page (list_media with productPage).',
      inputSchema: { projectId },
      annotations: READ,
    },
    ({ projectId: id }) => run(ctx, () => marketing.listPages(ctx, id)),
  );

  server.registerTool(
    'update_product_page',
    {
      title: "Update a custom product page's promotional text in one locale",
      description: `At most 170 characters; a locale the page lacks is created by the push. ${STATES} Pushed with push_project.`,
      inputSchema: { projectId, pageId, locale, promotionalText: text(170) },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, pageId: page, locale: at, promotionalText }) =>
      run(ctx, () => marketing.updatePage(ctx, id, page, at, { promotionalText })),
  );

  server.registerTool(
    'copy_default_page',
    {
      title: 'Copy the default product page into a custom product page',
      description:
        "Per locale, the App Store listing's promotional text and its screenshots and previews (the same " +
        'files). locales: default every App Store listing; parts: texts, media or both (default).',
      inputSchema: {
        projectId,
        pageId,
        locales: z.array(z.string().max(20)).max(50).optional(),
        parts: z
          .array(z.enum(['texts', 'media']))
          .min(1)
          .max(2)
          .optional(),
      },
      annotations: WRITE,
    },
    ({ projectId: id, pageId: page, ...input }) =>
      run(ctx, () => marketing.copyDefault(ctx, id, page, input)),
  );

  server.registerTool(
    'list_app_events',
    {
      title: 'List in-app events',
      description:
        'The App Store in-app events as the last sync read them: reference name, badge, purpose, priority, ' +
        'schedule, state and whether their texts can be edited, and name, short and long description per locale.',
      inputSchema: { projectId },
      annotations: READ,
    },
    ({ projectId: id }) => run(ctx, () => marketing.listEvents(ctx, id)),
  );

  server.registerTool(
    'update_app_event',
    {
      title: "Update an in-app event's texts in one locale",
      description: `name ≤ 30, shortDescription ≤ 50, longDescription ≤ 120 characters; all checked first. ${STATES}`,
      inputSchema: {
        projectId,
        eventId,
        locale,
        name: text(30),
        shortDescription: text(50),
        longDescription: text(120),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ projectId: id, eventId: event, locale: at, ...fields }) =>
      run(ctx, () =>
        marketing.updateEvent(
          ctx,
          id,
          event,
          at,
          Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
        ),
      ),
  );
}
