/**
 * The MCP server behind `{PUBLIC_URL}/mcp` (Streamable HTTP; routes.ts serves it). Stateless: each
 * POST gets a server bound to the caller's request context, so tools run with the same API key, role,
 * organization scope and rate limit as REST. Every tool is a thin adapter over a domain service.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationId, RequestContext } from '../modules/access/index.js';
import type { Services } from '../services.js';
import { fastlaneTools } from './tools/fastlane.js';
import { listingTools } from './tools/listings.js';
import { mediaTools } from './tools/media.js';
import { organizationTools } from './tools/organization.js';
import { projectTools } from './tools/projects.js';
import { releaseTools } from './tools/releases.js';
import { productTools } from './tools/products.js';
import { marketingTools } from './tools/marketing.js';
import { detailTools } from './tools/details.js';
import { scheduleTools } from './tools/schedules.js';
import { adminTools } from './tools/admin.js';
import { outputSchemaFor, type DataSchemaOf } from './output-schemas.js';
import { syncTools } from './tools/sync.js';
import { translationTools } from './tools/translations.js';

/**
 * Every tool and the operations (src/modules/access) it performs: the same operation ids, and so
 * the same role checks, as the REST routes. test/organizations/operations.test.ts checks this table.
 */
export const TOOL_OPERATIONS = {
  list_projects: ['projects.list'],
  get_project: ['projects.get'],
  create_project: ['projects.create'],
  update_project: ['projects.update'],
  get_listings: ['listings.list', 'listings.get'],
  update_listing: ['listings.update'],
  validate_listing: ['listings.validate'],
  delete_locale: ['listings.delete'],
  get_diff: ['listings.diff'],
  sync_project: ['projects.sync'],
  // A dry run writes nothing: anyone who may read the diff may ask for one.
  push_project: ['projects.push', 'listings.diff'],
  get_operation: ['operations.get'],
  cancel_operation: ['operations.cancel'],
  get_organization: ['organization.get'],
  list_members: ['members.list'],
  list_locales: ['locales.list'],
  copy_listing: ['listings.copy'],
  get_history: ['listings.history'],
  revert_field: ['listings.revert'],
  approve_changes: ['listings.approve'],
  request_approval: ['approvalRequests.create'],
  list_approval_requests: ['approvalRequests.list'],
  list_operations: ['projects.operations'],
  export_fastlane: ['listings.export'],
  import_fastlane: ['listings.import'],
  list_media: ['media.list'],
  reorder_media: ['media.reorder'],
  copy_media: ['media.copy'],
  upload_screenshot: ['media.upload'],
  remove_media: ['media.delete'],
  get_media_history: ['media.history'],
  revert_media: ['media.revert'],
  list_releases: ['releases.list'],
  create_app_store_version: ['releases.create'],
  get_release_notes: ['releaseNotes.list'],
  update_release_notes: ['releaseNotes.updateAppStore', 'releaseNotes.updatePlay'],
  list_products: ['products.list'],
  get_product: ['products.get'],
  update_product: ['products.update'],
  get_product_history: ['products.history'],
  revert_product_text: ['products.revert'],
  copy_product_texts: ['products.copy'],
  list_product_pages: ['productPages.list'],
  update_product_page: ['productPages.update'],
  copy_default_page: ['productPages.copyDefault'],
  list_app_events: ['appEvents.list'],
  update_app_event: ['appEvents.update'],
  get_details: ['details.get'],
  update_details: ['details.update'],
  list_schedules: ['schedules.list'],
  schedule_change: ['schedules.create'],
  cancel_schedule: ['schedules.cancel'],
  get_release_controls: ['releaseControls.get'],
  apply_release_control: ['releaseControls.apply'],
  get_translations: ['translations.status', 'translations.get'],
  machine_translate: ['translations.machine'],
  accept_translations: ['translations.accept'],
  list_glossaries: ['glossaries.list'],
  set_glossary: ['glossaries.set'],
  delete_glossary: ['glossaries.delete'],
  list_webhooks: ['webhooks.list'],
  create_webhook: ['webhooks.create'],
  delete_webhook: ['webhooks.delete'],
  list_audit_log: ['auditLog.list'],
} as const satisfies Record<string, readonly OperationId[]>;

/** The resources and the operation that reads each. */
export const RESOURCE_OPERATIONS = { 'project-listings': 'listings.list' } as const satisfies Record<
  string,
  OperationId
>;

/**
 * The tool groups, one file per feature in src/mcp/tools. A new tool goes into its feature's file
 * (or a new file listed here) and into TOOL_OPERATIONS.
 */
const TOOL_GROUPS: ((server: McpServer, ctx: RequestContext, services: Services) => void)[] = [
  projectTools,
  listingTools,
  fastlaneTools,
  syncTools,
  organizationTools,
  mediaTools,
  releaseTools,
  productTools,
  marketingTools,
  detailTools,
  scheduleTools,
  translationTools,
  adminTools,
];

export function createMcpServer(
  services: Services,
  ctx: RequestContext,
  dataSchemaOf?: DataSchemaOf,
): McpServer {
  const server = new McpServer(
    { name: 'appmeta', version: '1.0.0' },
    {
      instructions:
        'appmeta manages App Store and Google Play listing texts per project, store and locale. Typical flow: ' +
        'list_projects → get_listings → update_listing → get_diff → push_project with dryRun, then without.',
    },
  );
  if (dataSchemaOf !== undefined) {
    // Every tool declares what it answers: its operation's REST data (output-schemas.ts).
    const register = server.registerTool.bind(server);
    server.registerTool = ((name: string, config: { outputSchema?: unknown }, callback: unknown) => {
      const operations = (TOOL_OPERATIONS as Record<string, readonly string[]>)[name] ?? [];
      const outputSchema = config.outputSchema ?? outputSchemaFor(name, operations, dataSchemaOf);
      return register(
        name,
        { ...config, ...(outputSchema !== undefined && { outputSchema }) } as never,
        callback as never,
      );
    }) as typeof server.registerTool;
  }
  for (const register of TOOL_GROUPS) register(server, ctx, services);
  refuseUnknownTools(server);
  return server;
}

type Handler = (request: { params: { name: string } }, extra: unknown) => Promise<unknown>;

/**
 * A call of a tool that does not exist is a JSON-RPC error (-32602), as MCP specifies, not a tool
 * result: the SDK answers it as a failed tool, which an agent reads as the tool having run.
 */
function refuseUnknownTools(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const call = handlers.get('tools/call');
  const known = (server as unknown as { _registeredTools: Record<string, unknown> })._registeredTools;
  if (call === undefined) return;
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    if (!Object.hasOwn(known, request.params.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    return call(request, extra) as never;
  });
}

/**
 * Answers one MCP POST on the raw request and response: a server bound to the caller's context and
 * a stateless transport, both closed when the response is.
 */
export async function answerMcp(
  services: Services,
  ctx: RequestContext,
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
  dataSchemaOf: DataSchemaOf,
): Promise<void> {
  const server = createMcpServer(services, ctx, dataSchemaOf);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
