/** Runs `bin/appmeta serve` as a real process on a free port, as an operator would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli.js';

export interface ServedProcess {
  child: ChildProcess;
  /** Resolves with the URL once the service listens; rejects if it exits first. */
  listening: Promise<string>;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

export function serve(env: Record<string, string>): ServedProcess {
  const child = spawn(BIN, ['serve'], { env: { PATH: process.env.PATH ?? '', PORT: '0', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const listening = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)".*appmeta is listening/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, listening, exited, output: () => ({ stdout, stderr }) };
}

/** The admin key that the first start prints once. */
export const printedAdminKey = (served: ServedProcess): string | undefined =>
  /Admin API key \(shown once, store it now\): (amk_\S+)/.exec(served.output().stdout)?.[1];
