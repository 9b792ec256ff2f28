/** Start-up failures that need a PostgreSQL server to answer: an unknown database, a refused login. */
import { describe, expect, it } from 'vitest';
import { adminUrl } from '../support/databases.js';
import { serve } from '../support/serve.js';

const SECRET = Buffer.alloc(32, 1).toString('base64');

async function failedStart(databaseUrl: string) {
  const served = serve({ DATABASE_URL: databaseUrl, APPMETA_SECRET_KEY: SECRET });
  served.listening.catch(() => undefined);
  return { code: await served.exited, stderr: served.output().stderr };
}

const withPath = (user: string | null, database: string) => {
  const url = new URL(adminUrl());
  if (user !== null) url.username = user;
  url.pathname = `/${database}`;
  return url.toString();
};

describe('appmeta serve against PostgreSQL that refuses', () => {
  it('says the database does not exist', async () => {
    const res = await failedStart(withPath(null, 'appmeta_no_such_database'));
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('database "appmeta_no_such_database" does not exist');
  });

  it('says the login was refused', async () => {
    const res = await failedStart(withPath('appmeta_no_such_role', 'postgres'));
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('(DATABASE_URL): authentication failed');
  });
});
