/**
 * After the whole run: drops every PostgreSQL database this run created and did not drop, so that
 * a test that failed (or a worker that died) before its cleanup leaves nothing behind.
 */
import { dropRunDatabases } from './databases.js';

export default function setup() {
  return async function teardown() {
    const dropped = await dropRunDatabases(process.env.APPMETA_TEST_RUN!);
    if (dropped.length > 0) {
      console.warn(
        `global teardown dropped ${dropped.length} database(s) left behind: ${dropped.join(', ')}`,
      );
    }
  };
}
