/**
 * The HTTP side of the MCP endpoint (design.md §1: `{PUBLIC_URL}/mcp`). The MCP SDK and zod are
 * loaded with ./server.js on the first MCP request: most instances never answer one, and the two
 * were the largest part of the service's idle heap (BENCHMARKS.md, #22).
 */
import type { Api } from '../http/api.js';
import { contextOf, requireCaller } from '../http/identity.js';
import type { ChargeRequests } from '../http/rate-limit.js';
import { successDataSchema, type RouteEntry } from '../http/route-table.js';
import type { Services } from '../services.js';

let mcpServer: Promise<typeof import('./server.js')> | null = null;
const loadMcpServer = () => (mcpServer ??= import('./server.js'));

/** An MCP request's JSON, with room for upload_screenshot's largest base64 file and its envelope. */
const MCP_BODY_LIMIT_BYTES = 12 * 1024 * 1024;

const METHOD_NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST' },
  id: null,
};

/**
 * A JSON-RPC batch (allowed by MCP 2025-03-26, which the SDK still speaks; 2025-06-18 removed
 * batches) is charged one request per message against the plan's rate limit, before any of it
 * runs: the HTTP request itself counted one already.
 */
export function mcpRoutes(
  app: Api,
  services: Services,
  chargeRequests: ChargeRequests,
  routes: RouteEntry[],
): void {
  const dataSchemaOf = (operationId: string) => successDataSchema(routes, operationId);
  app.register(async (scope: Api) => {
    scope.addHook('onRequest', requireCaller);
    const config = {
      noIdempotencyKey: 'MCP requests are JSON-RPC messages; send the key with the REST route',
    };
    // A screenshot travels base64 inside the JSON-RPC message (upload_screenshot, 8 MiB decoded).
    scope.post(
      '/mcp',
      { schema: { hide: true }, config, bodyLimit: MCP_BODY_LIMIT_BYTES },
      async (request, reply) => {
        if (Array.isArray(request.body) && request.body.length > 1) {
          await chargeRequests(request, reply, request.body.length - 1);
        }
        const ctx = contextOf(request);
        const { answerMcp } = await loadMcpServer();
        // The reply is handed to the transport; carry over the headers set so far (request id, rate limits).
        reply.hijack();
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value);
        }
        await answerMcp(services, ctx, request.raw, reply.raw, request.body, dataSchemaOf);
      },
    );
    for (const method of ['GET', 'DELETE'] as const) {
      scope.route({
        method,
        url: '/mcp',
        schema: { hide: true },
        handler: async (_request, reply) => reply.code(405).header('Allow', 'POST').send(METHOD_NOT_ALLOWED),
      });
    }
  });
}
