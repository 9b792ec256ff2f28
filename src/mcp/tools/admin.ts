/** An admin's organization tools: glossaries, webhooks and the audit log (admins, as over REST). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { paged, run, READ, WRITE } from '../tool-kit.js';

const language = z.string().max(20).describe('A language code of the pair, e.g. en or de');

export function adminTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { glossaries, machineTranslation, webhooks, organizations } = services;

  server.registerTool(
    'list_glossaries',
    {
      title: 'List the glossaries and this month’s machine translation',
      description:
        'Each language pair’s glossary (terms kept as they are, source → target entries) and the characters machine ' +
        'translation used this month.',
      inputSchema: {},
      annotations: READ,
    },
    () =>
      run(ctx, async () => ({
        glossaries: await glossaries.list(ctx),
        usage: await machineTranslation.usage(ctx.organizationId),
      })),
  );

  server.registerTool(
    'set_glossary',
    {
      title: 'Set the glossary of a language pair',
      description:
        'Replaces the glossary used when translating from `source` to `target`: `terms` are kept as they are (the app ' +
        'name, trademarks); `entries` map a source term to its translation. Admins.',
      inputSchema: {
        source: language,
        target: language,
        terms: z.array(z.string().max(1024)).max(5000).optional(),
        entries: z.record(z.string().max(1024), z.string().max(1024)).optional(),
      },
      annotations: { ...WRITE, idempotentHint: true },
    },
    ({ source, target, ...input }) => run(ctx, () => glossaries.set(ctx, source, target, input)),
  );

  server.registerTool(
    'delete_glossary',
    {
      title: 'Delete the glossary of a language pair',
      description: 'Later translations of that pair use no glossary. Admins.',
      inputSchema: { source: language, target: language },
      annotations: { ...WRITE, destructiveHint: true },
    },
    ({ source, target }) =>
      run(ctx, async () => {
        await glossaries.remove(ctx, source, target);
        return { deleted: true as const };
      }),
  );

  server.registerTool(
    'list_webhooks',
    {
      title: 'List the webhook endpoints',
      description: 'The organization’s endpoints with their events and state; never their secrets. Admins.',
      inputSchema: {},
      annotations: READ,
    },
    () => run(ctx, async () => ({ webhooks: await webhooks.list(ctx) })),
  );

  server.registerTool(
    'create_webhook',
    {
      title: 'Add a webhook endpoint',
      description:
        'Signed deliveries (Standard Webhooks) of the events named (all when none) to an https URL. The answer holds ' +
        'the signing secret, shown this once. Admins.',
      inputSchema: {
        url: z.string().max(2000),
        events: z.array(z.string().max(50)).max(50).optional(),
        description: z.string().max(500).optional(),
      },
      annotations: WRITE,
    },
    (input) => run(ctx, () => webhooks.create(ctx, input)),
  );

  server.registerTool(
    'delete_webhook',
    {
      title: 'Remove a webhook endpoint',
      description: 'The endpoint and its delivery log go; deliveries not yet made are dropped. Admins.',
      inputSchema: { webhookId: z.string().max(64) },
      // REST answers only a message.
      outputSchema: { deleted: z.literal(true) },
      annotations: { ...WRITE, destructiveHint: true },
    },
    ({ webhookId }) =>
      run(ctx, async () => {
        await webhooks.remove(ctx, webhookId);
        return { deleted: true as const };
      }),
  );

  server.registerTool(
    'list_audit_log',
    {
      title: 'Read the audit log',
      description:
        'Who did what to which target, newest first: filter by member (`actor`), project, action (an operation id or a ' +
        'prefix ending in `.`), and time. Admins.',
      inputSchema: {
        actor: z.string().max(64).optional(),
        projectId: z.string().max(64).optional(),
        action: z.string().max(80).optional(),
        from: z.string().max(40).optional(),
        to: z.string().max(40).optional(),
        limit: z.number().int().min(1).max(100).optional(),
        offset: z.number().int().min(0).optional(),
      },
      annotations: READ,
    },
    ({ limit, offset, ...filter }) =>
      run(ctx, () => paged({ limit, offset }, (page) => organizations.auditLog(ctx, filter, page))),
  );
}
