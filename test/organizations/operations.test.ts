/**
 * One name per operation: every REST route, MCP tool and CLI command names an operation of the
 * role table (src/modules/access/operations.ts), and every operation of the table is used by at
 * least one of them. A new route, tool or command without an entry fails here.
 */
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, COMMAND_OPERATIONS } from '../../src/cli/main.js';
import { RESOURCE_OPERATIONS, TOOL_OPERATIONS } from '../../src/mcp/server.js';
import { isOperation, OPERATIONS } from '../../src/modules/access/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { withAdminMcp } from '../support/mcp-in-memory.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Routes that serve no operation of their own: the API reference's files and the MCP transport. */
const INFRASTRUCTURE = [/^\/docs(\/|$)/, /^\/mcp$/];

const routeOperations = () =>
  h.routes
    .filter((route) => route.method !== 'HEAD' && !INFRASTRUCTURE.some((p) => p.test(route.url)))
    .map((route) => ({ route: `${route.method} ${route.url}`, operationId: route.operationId }));

const registeredTools = () =>
  withAdminMcp(h, async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort());

/** The leaf commands of the CLI, by their path ("org create"). */
function leafCommands(command: Command, prefix: string[] = []): string[] {
  if (command.commands.length === 0) return [prefix.join(' ')];
  return command.commands.flatMap((sub) => leafCommands(sub, [...prefix, sub.name()]));
}

describe('the role table and its users', () => {
  it('has an entry for every route', () => {
    const routes = routeOperations();
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((r) => r.operationId === undefined || !isOperation(r.operationId))).toEqual([]);
  });

  it('has an entry for every MCP tool and resource, and the table lists exactly the registered tools', async () => {
    expect(await registeredTools()).toEqual(Object.keys(TOOL_OPERATIONS).sort());
    const toolOperations = [...Object.values(TOOL_OPERATIONS).flat(), ...Object.values(RESOURCE_OPERATIONS)];
    expect(toolOperations.filter((operation) => !isOperation(operation))).toEqual([]);
  });

  it('has an entry for every CLI command, and the table lists exactly the commands', () => {
    const commands = leafCommands(buildCli()).sort();
    expect(commands.length).toBeGreaterThan(5);
    expect(commands).toEqual(Object.keys(COMMAND_OPERATIONS).sort());
    expect(Object.values(COMMAND_OPERATIONS).filter((operation) => !isOperation(operation))).toEqual([]);
  });

  it('uses every entry: each operation has a route, a tool or a command', () => {
    const used = new Set<string>([
      ...routeOperations().map((r) => r.operationId!),
      ...Object.values(TOOL_OPERATIONS).flat(),
      ...Object.values(RESOURCE_OPERATIONS),
      ...Object.values(COMMAND_OPERATIONS),
    ]);
    expect(Object.keys(OPERATIONS).filter((operation) => !used.has(operation))).toEqual([]);
  });

  it('gives a route and the tool or command of the same operation the same role check', () => {
    // A tool performs REST operations (roles), never an operator's one.
    for (const operation of Object.values(TOOL_OPERATIONS).flat()) {
      expect(Array.isArray(OPERATIONS[operation]), operation).toBe(true);
    }
  });
});
