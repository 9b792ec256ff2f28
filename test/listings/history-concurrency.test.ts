/**
 * Field history stays a chain under concurrent edits (on PostgreSQL, READ COMMITTED, several
 * connections at once): every entry's "old" is the previous entry's "new", and a revert to any
 * entry restores exactly its value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness } from '../support/harness.js';

let h: Harness;
let admin: Actor;

beforeAll(async () => {
  h = await startHarness();
  admin = (await h.given.organization()).admin;
});
afterAll(() => h.close());

interface Entry {
  id: string;
  field: string;
  old: string | null;
  new: string | null;
}

describe('history under concurrent edits', () => {
  it('leaves 20 concurrent edits of one field as 20 entries that chain exactly, each revertable', async () => {
    const project = (await h.given.project(admin, { playStorePackageName: 'com.example.app' })).id;
    const url = `/api/v1/projects/${project}/listings/playstore/en-US`;
    expect((await admin.api.patch(url, { title: 'Start' })).status).toBe(200);

    const values = Array.from({ length: 20 }, (_, i) => `Title ${i + 1}`);
    const results = await Promise.all(values.map((title) => admin.api.patch(url, { title })));
    expect(results.map((r) => r.status)).toEqual(Array<number>(20).fill(200));

    const history = await admin.api.get(`${url}/history?limit=100`);
    const entries = (history.body.data.entries as Entry[]).filter(
      (e) => e.field === 'title' && e.old !== null,
    );
    expect(entries).toHaveLength(20);
    // Walk the chain from the first value: each step must find exactly one entry.
    let current: string | null = 'Start';
    const walked: Entry[] = [];
    for (let step = 0; step < 20; step++) {
      const next = entries.filter((e) => e.old === current);
      expect(next, `entries continuing from ${current}`).toHaveLength(1);
      walked.push(next[0]!);
      current = next[0]!.new;
    }
    expect(new Set(walked.map((e) => e.new))).toEqual(new Set(values));
    const final = (await admin.api.get(url)).body.data.listing.fields.title.value;
    expect(final).toBe(current);

    for (const entry of walked) {
      const reverted = await admin.api.post(`${url}/revert`, { historyId: entry.id, to: 'after' });
      expect(reverted.status).toBe(200);
      expect(reverted.body.data.listing.fields.title.value).toBe(entry.new);
    }
  });
});
