/**
 * What every MCP tool shares: the schemas of the common arguments, the annotations of reads and
 * writes, and `run`, which turns a domain result into a tool result and an AppError into a tool
 * error with the REST code.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError } from '../errors.js';
import type { RequestContext } from '../modules/access/index.js';
import { APPSTORE_FIELDS, PLAYSTORE_FIELDS } from '../modules/listings/index.js';
import { STORE_SELECTIONS, STORES } from '../shared/stores.js';

/**
 * Every listing field of both stores, and nothing else: an unknown name (also "constructor" or
 * "__proto__") is refused by name before the tool runs.
 */
export const listingFields = z.strictObject(
  Object.fromEntries(
    Object.entries({ ...APPSTORE_FIELDS, ...PLAYSTORE_FIELDS }).map(([name, rule]) => [
      name,
      z.string().max(20_000).nullable().optional().describe(rule.label),
    ]),
  ),
);

export const store = z.enum(STORES).describe('appstore (Apple App Store) or playstore (Google Play)');
export const storeSelection = z.enum(STORE_SELECTIONS).describe('Which store(s); default both');
export const projectId = z.string().max(100).describe('A project id such as proj_...');
export const locale = z
  .string()
  .max(20)
  .describe(
    "The store's own locale code: Apple uses e.g. en-US, de-DE, ja, zh-Hans; Google uses en-US, de-DE, ja-JP, zh-CN",
  );

/** Renders a service result as a tool result, and an AppError as a tool error with the REST code. */
export async function run(ctx: RequestContext, work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const data = (await work()) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  } catch (error) {
    const appError =
      error instanceof AppError ? error : new AppError('INTERNAL_ERROR', 'Internal server error');
    if (!(error instanceof AppError)) ctx.log.error({ err: error }, 'MCP tool failed');
    const body = {
      error: {
        code: appError.code,
        message: appError.message,
        ...(appError.details && { details: appError.details }),
      },
    };
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: body,
    };
  }
}

export const READ = { readOnlyHint: true, openWorldHint: false } as const;
export const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

/** A page of a list as REST answers it: the entries, with the page they are (`limit`, `offset`). */
export async function paged<T extends object>(
  page: { limit?: number | undefined; offset?: number | undefined },
  read: (page: { limit: number; offset: number }) => Promise<T>,
): Promise<T & { limit: number; offset: number }> {
  const asked = { limit: page.limit ?? 20, offset: page.offset ?? 0 };
  return { ...(await read(asked)), ...asked };
}
