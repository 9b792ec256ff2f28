/**
 * Records the OpenAPI document's examples from real runs: with APPMETA_EXAMPLES_UPDATE=1 (on
 * SQLite), the role matrix and the operations without a member keep each operation's first
 * successful request and answer, and write them to src/http/openapi-examples.json when the file
 * ends (arrays cut to two entries, long texts cut). Run the two files one after the other
 * (`--no-file-parallelism`), then `npx prettier --write src/http/openapi-examples.json`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { testDialect } from './databases.js';

const FILE = path.join(import.meta.dirname, '../../src/http/openapi-examples.json');
export const RECORDING = process.env.APPMETA_EXAMPLES_UPDATE === '1' && testDialect() === 'sqlite';

/** Fields whose values are secrets, even a test's: the example keeps their shape, not their value. */
const SECRET = /^(privateKey|private_key|secret|apiKey|token|password|demoAccountPassword)$/;

/** A secret as an example shows it: its prefix (amk_, whsec_, a PEM header) and no more. */
function placeholder(value: string): string {
  const pem = /^-----BEGIN [A-Z ]+-----/.exec(value);
  if (pem !== null) return `${pem[0]}\n…\n${pem[0].replace('BEGIN', 'END')}`;
  const prefix = /^[a-z]+_/.exec(value)?.[0] ?? '';
  return `${prefix}EXAMPLE`;
}

/** An example small enough to read: two entries of a list, the start of a long text, no secret. */
function shrink(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.slice(0, 2).map((inner) => shrink(inner));
  if (typeof value === 'string') {
    if (SECRET.test(key)) return placeholder(value);
    return value.length > 300 ? `${value.slice(0, 297)}…` : value;
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, shrink(inner, name)]));
  }
  return value;
}

export function createExampleRecorder() {
  const recorded: Record<string, { status: string; request?: unknown; response: unknown }> = {};
  return {
    record(operationId: string, status: number, request: unknown, response: unknown): void {
      if (!RECORDING || status < 200 || status >= 300 || recorded[operationId] !== undefined) return;
      if (response === null || typeof response !== 'object') return;
      recorded[operationId] = {
        status: String(status),
        ...(request !== undefined &&
          request !== null &&
          typeof request === 'object' && { request: shrink(request) }),
        response: shrink(response),
      };
    },
    /** Merges what was recorded into the file, sorted by operation. */
    write(): void {
      if (!RECORDING || Object.keys(recorded).length === 0) return;
      const existing = JSON.parse(fs.readFileSync(FILE, 'utf8')) as Record<string, unknown>;
      const merged = { ...existing, ...recorded };
      const sorted = Object.fromEntries(
        Object.keys(merged)
          .sort()
          .map((key) => [key, merged[key]]),
      );
      fs.writeFileSync(FILE, `${JSON.stringify(sorted, null, 2)}\n`);
    },
  };
}
