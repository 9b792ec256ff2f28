/**
 * An MCP client talking to the service's MCP server in memory, as an organization's admin: for
 * tests about what the server registers (tools, resources), without HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { createMcpServer } from '../../src/mcp/server.js';
import type { Harness } from './harness.js';

export async function withAdminMcp<T>(h: Harness, use: (client: Client) => Promise<T>): Promise<T> {
  const org = await h.given.organization();
  const ctx = {
    organizationId: org.id,
    principal: { memberId: org.admin.id, role: 'admin' as const, keyId: 'key' },
    requestId: 'test',
    log: pino({ level: 'silent' }),
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(h.services, ctx);
  await server.connect(serverSide);
  const client = new Client({ name: 'appmeta-test', version: '1.0.0' });
  try {
    await client.connect(clientSide);
    return await use(client);
  } finally {
    await client.close();
    await server.close();
  }
}
