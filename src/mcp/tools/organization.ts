/** The organization, its members and the locales of both stores. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, projectId } from '../tool-kit.js';

export function organizationTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { organizations, members, locales } = services;

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
}
