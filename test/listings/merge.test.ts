/**
 * The three-way merge of sync (design.md §9), every case of one field as a table, then what
 * happens to whole locales added or removed on either side (on the real database).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mergeField,
  mergeSnapshot,
  type LocalField,
  type MergedField,
} from '../../src/modules/listings/store-merge.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';

const edited = (value: string | null, base: string | null, inConflict = false): LocalField => ({
  value,
  base,
  inConflict,
});
const same = (value: string | null): LocalField => edited(value, value);

// [case, local field (undefined: no row), what the store has now, expected result (null: no change)]
const CASES: [string, LocalField | undefined, string | null, MergedField | null][] = [
  ['field in neither place', undefined, null, null],
  ['field added in the store', undefined, 'A', { value: 'A', base: 'A' }],
  ['field added in the store as ""', undefined, '', null],
  ['not edited, store unchanged', same('A'), 'A', null],
  ['not edited, store changed', same('A'), 'B', { value: 'B', base: 'B' }],
  ['not edited, removed in the store', same('A'), null, { value: null, base: null }],
  ['not edited, emptied in the store ("")', same('A'), '', { value: null, base: null }],
  ['empty here and in the store', same(null), null, null],
  ['empty here, added in the store', same(null), 'A', { value: 'A', base: 'A' }],
  ['edited here, store unchanged', edited('B', 'A'), 'A', null],
  ['edited here, store made the same change', edited('B', 'A'), 'B', { value: 'B', base: 'B' }],
  [
    'edited here, store changed it otherwise',
    edited('B', 'A'),
    'C',
    { value: 'B', base: 'A', conflict: 'C' },
  ],
  ['edited here, removed in the store', edited('B', 'A'), null, { value: 'B', base: 'A', conflict: null }],
  ['edited here, emptied in the store ("")', edited('B', 'A'), '', { value: 'B', base: 'A', conflict: null }],
  ['cleared here, store unchanged', edited(null, 'A'), 'A', null],
  ['cleared here, also removed in the store', edited(null, 'A'), null, { value: null, base: null }],
  ['cleared here, changed in the store', edited(null, 'A'), 'B', { value: null, base: 'A', conflict: 'B' }],
  ['added here, absent from the store', edited('A', null), null, null],
  ['added here, the store added the same', edited('A', null), 'A', { value: 'A', base: 'A' }],
  [
    'added here, the store added another text',
    edited('A', null),
    'B',
    { value: 'A', base: null, conflict: 'B' },
  ],
  [
    'in conflict, the store still differs',
    edited('B', 'A', true),
    'C',
    { value: 'B', base: 'A', conflict: 'C' },
  ],
  [
    'in conflict, the store changed again',
    edited('B', 'A', true),
    'D',
    { value: 'B', base: 'A', conflict: 'D' },
  ],
  ['in conflict, the store now agrees', edited('B', 'A', true), 'B', { value: 'B', base: 'B' }],
  ['in conflict, the store went back to the base', edited('B', 'A', true), 'A', { value: 'B', base: 'A' }],
  [
    'in conflict with an unchanged value',
    edited('A', 'A', true),
    'C',
    { value: 'A', base: 'A', conflict: 'C' },
  ],
];

describe('mergeField: every case of one field', () => {
  it.each(CASES)('%s', (_case, local, store, expected) => {
    expect(mergeField(local, store)).toEqual(expected);
  });
});

describe('mergeSnapshot: locales added or removed on either side', () => {
  let h: Harness;
  let admin: Actor;
  beforeAll(async () => {
    h = await startHarness();
    admin = (await h.given.organization()).admin;
  });
  afterAll(() => h.close());

  it('adds store locales, follows a store removal of an untouched locale, keeps edited and unpushed ones', async () => {
    const project = (await h.given.project(admin, { playStorePackageName: 'com.example.app' })).id;
    const org = (await admin.api.get('/api/v1/organization')).body.data.id as string;
    const scope = { organizationId: org, projectId: project, actor: { memberId: admin.id, operator: null } };
    const merge = (snapshot: Record<string, Record<string, string | null>>) =>
      h.db.kysely
        .transaction()
        .execute((trx) =>
          mergeSnapshot(trx, scope, 'playstore', new Map(Object.entries(snapshot)), new Date().toISOString()),
        );
    const locales = async () =>
      Object.fromEntries(
        ((await admin.api.get(`/api/v1/projects/${project}/listings`)).body.data.listings as any[]).map(
          (l) => [l.locale, l.fields.title.value],
        ),
      );

    const first = await merge({
      'en-US': { title: 'Weather' },
      'de-DE': { title: 'Wetter' },
      'fr-FR': { title: 'Météo' },
    });
    expect(first).toMatchObject({ locales: ['de-DE', 'en-US', 'fr-FR'], conflicts: [], changedFields: 3 });
    // Edited here: de-DE. Only here (never pushed): it-IT.
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/de-DE`, { title: 'Wetter Pro' });
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/it-IT`, { title: 'Meteo' });

    // The store dropped de-DE and fr-FR, and kept en-US.
    const second = await merge({ 'en-US': { title: 'Weather' } });
    expect(second).toMatchObject({ locales: ['en-US'], conflicts: [], changedFields: 0 });
    expect(await locales()).toEqual({ 'de-DE': 'Wetter Pro', 'en-US': 'Weather', 'it-IT': 'Meteo' });
  });
});
