/** Translation states, machine drafts and accepting them. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, WRITE, store, projectId, locale } from '../tool-kit.js';

export function translationTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { translations, machineTranslation } = services;

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
}
