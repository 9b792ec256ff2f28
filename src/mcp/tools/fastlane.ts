/** Listings as fastlane trees, out and in. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import type { Services } from '../../services.js';
import { run, READ, WRITE, projectId } from '../tool-kit.js';

export function fastlaneTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { fastlane } = services;

  server.registerTool(
    'export_fastlane',
    {
      title: 'Export as fastlane files',
      description:
        "The project's listing texts (working copies) as the files of fastlane's layouts: " +
        'fastlane/metadata/<locale>/<field>.txt (deliver, App Store) and fastlane/metadata/android/<language>/<field>.txt ' +
        '(supply, Google Play), as a map of path → text.',
      inputSchema: { projectId },
      // The REST route answers a zip; the tool answers its files.
      outputSchema: { files: z.record(z.string(), z.string()).describe('path → file text') },
      annotations: READ,
    },
    (args) =>
      run(ctx, async () => ({ files: Object.fromEntries(await fastlane.exportFiles(ctx, args.projectId)) })),
  );

  server.registerTool(
    'import_fastlane',
    {
      title: 'Import fastlane files',
      description:
        'Imports listing texts given as fastlane files (path → text): fastlane/metadata/<locale>/*.txt (App Store) and ' +
        'fastlane/metadata/android/<language>/*.txt (Google Play), as export_fastlane writes them. Validated like ' +
        'update_listing and applied all or nothing; everything else is reported in `skipped` with the reason. When the ' +
        'files hold several fastlane trees, `path` names the one to read.',
      inputSchema: {
        projectId,
        files: z.record(z.string().max(1000), z.string().max(100_000)).describe('path → file text'),
        path: z
          .string()
          .max(1000)
          .optional()
          .describe('The folder to read as the metadata tree ("." for the root of the paths)'),
      },
      annotations: WRITE,
    },
    (args) =>
      run(ctx, () =>
        fastlane.importFiles(ctx, args.projectId, new Map(Object.entries(args.files)), {
          ...(args.path !== undefined && { path: args.path }),
        }),
      ),
  );
}
