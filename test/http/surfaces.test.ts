/**
 * What clients, agents and scripts see of the service: the OpenAPI document, the MCP tools and
 * resources, and every command's `--help`. They change only on purpose — a refactoring that moves
 * code between files must leave them byte for byte as they were. After an intended change, update
 * the files with `npx vitest run test/surfaces.test.ts -u` and review the diff.
 */
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../src/cli/main.js';
import { startHarness, type Harness } from '../support/harness.js';
import { withAdminMcp } from '../support/mcp-in-memory.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Every command's help, depth first, as `appmeta <path> --help` prints it. */
function helpTexts(command: Command, path: string[] = []): string[] {
  const here = [`$ appmeta ${[...path, '--help'].join(' ')}\n${command.helpInformation()}`];
  return here.concat(command.commands.flatMap((sub) => helpTexts(sub, [...path, sub.name()])));
}

describe('the surfaces stay as they are', () => {
  it('serves the same OpenAPI document', async () => {
    const res = await h.client().get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    await expect(`${JSON.stringify(res.body, null, 2)}\n`).toMatchFileSnapshot('./__surfaces__/openapi.json');
  });

  it('lists the same MCP tools and resources', async () => {
    const listed = await withAdminMcp(h, async (client) => ({
      // MCP gives the order of tools/list no meaning: compared by name.
      tools: (await client.listTools()).tools.sort((a, b) => (a.name < b.name ? -1 : 1)),
      resourceTemplates: (await client.listResourceTemplates()).resourceTemplates,
    }));
    await expect(`${JSON.stringify(listed, null, 2)}\n`).toMatchFileSnapshot('./__surfaces__/mcp.json');
  });

  it('prints the same help for every command', async () => {
    await expect(helpTexts(buildCli()).join('\n')).toMatchFileSnapshot('./__surfaces__/cli-help.txt');
  });
});
