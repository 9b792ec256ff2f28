/**
 * A private PostgreSQL server for tests that must stop and start PostgreSQL itself, which the
 * shared server of the suite cannot do without breaking every other test file. initdb and pg_ctl
 * come with the PostgreSQL server packages; as root they run as the postgres user.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const exec = promisify(execFile);

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions
    .map((v) => path.join(root, v, 'bin'))
    .find((dir) => fs.existsSync(path.join(dir, 'pg_ctl')));
  if (found === undefined) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return found;
}

export interface PostgresCluster {
  url: string;
  start(): Promise<void>;
  /** A fast shutdown: PostgreSQL ends every backend (57P01) and refuses connections until started. */
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

export async function createPostgresCluster(): Promise<PostgresCluster> {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: string[]) =>
    asRoot
      ? exec('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args])
      : exec(path.join(bin, tool), args);
  if (asRoot) await exec('chown', ['postgres', dir]);
  const data = path.join(dir, 'data');
  await run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']).then();
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).then();
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      await start();
      running = true;
    },
    stop: async () => {
      await stop();
      running = false;
    },
    async destroy() {
      try {
        if (running) await stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
