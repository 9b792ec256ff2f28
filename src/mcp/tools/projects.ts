/** Projects: list, read, create, rename. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, WRITE, projectId } from '../tool-kit.js';

export function projectTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { projects } = services;

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
    (args) =>
      run(ctx, async () => {
        const project = await projects.create(ctx, args);
        return { projectId: project.id, project };
      }),
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
}
