import { spawn } from 'node:child_process';
import path from 'node:path';

export const BIN = path.resolve(import.meta.dirname, '../../bin/appmeta');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs bin/appmeta as an operator would, with only the given environment on top of PATH. */
export function runCli(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      ...(cwd !== undefined && { cwd }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
