/**
 * What an operator sees when `appmeta serve` cannot start: one line saying which database (no
 * password) or which port, and why; exit status 2; and at once — never a spin, never a hang.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from '../support/serve.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Runs `appmeta serve` with `env` and answers its exit status and stderr, within `limitMs`. */
async function failedStart(env: Record<string, string>, limitMs = 10_000) {
  const started = Date.now();
  const served = serve(env);
  served.listening.catch(() => undefined);
  const timer = setTimeout(() => served.child.kill('SIGKILL'), limitMs);
  const code = await served.exited;
  clearTimeout(timer);
  return { code, stderr: served.output().stderr, ms: Date.now() - started };
}

const SECRET = Buffer.alloc(32, 1).toString('base64');

describe('appmeta serve that cannot start', () => {
  it('names the PostgreSQL database without its password, and says the connection was refused', async () => {
    const res = await failedStart({
      DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/appmeta',
      APPMETA_SECRET_KEY: SECRET,
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      'appmeta: Cannot open the database postgres://app:***@127.0.0.1:1/appmeta (DATABASE_URL): the connection was refused',
    );
    expect(res.stderr).not.toContain('hunter2');
    expect(res.stderr).not.toMatch(/migration .* failed/);
  });

  it('fails at once, with the path and the reason, for a SQLite file it cannot create', async () => {
    const res = await failedStart({ DATABASE_URL: 'file:/proc/nope/app.db' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      'appmeta: Cannot open the SQLite database /proc/nope/app.db (DATABASE_URL): ',
    );
    expect(res.ms).toBeLessThan(8_000);
  });

  it('says that the port is taken, naming PORT', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const { port } = blocker.address() as net.AddressInfo;
    const res = await failedStart({ DATABASE_URL: 'file::memory:', PORT: String(port) });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      `appmeta: Port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to another port`,
    );
  });
});
