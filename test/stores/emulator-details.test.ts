/**
 * App details in both emulators (stores-more.md §C), called as a client of each store's API calls
 * them: App Store copyright only on an editable version and no other attribute, the category
 * catalogue and an appInfo's categories (an unknown id refused, only on the editable appInfo), one
 * App Review detail per version with Apple's phone and notes rules; Google Play's details inside an
 * edit — PUT needs the default language, which must have a listing, and a commit leaving no contact
 * e-mail is refused. Every request and answer is checked against the official documents.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PACKAGE,
  appleToken,
  googleToken,
  startEmulators,
  type RunningEmulators,
} from '../support/emulators.js';

let emu: RunningEmulators;

beforeAll(async () => {
  emu = await startEmulators();
});
afterAll(() => emu.close());
beforeEach(() => emu.restore());

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

describe('App Store details in the emulator', () => {
  const version = (id: string, attributes: Record<string, unknown>) => ({
    data: { type: 'appStoreVersions', id, attributes },
  });

  it('takes copyright on the version being prepared only, and no other attribute', async () => {
    const token = await appleToken(emu);
    const ok = await call(
      token,
      'PATCH',
      '/v1/appStoreVersions/ver-2',
      version('ver-2', { copyright: '2026 Acme' }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data.attributes.copyright).toBe('2026 Acme');
    const live = await call(
      token,
      'PATCH',
      '/v1/appStoreVersions/ver-1',
      version('ver-1', { copyright: '2026 Acme' }),
    );
    expect(live.status).toBe(409);
    expect(live.body.errors[0].code).toBe('STATE_ERROR');
    const other = await call(
      token,
      'PATCH',
      '/v1/appStoreVersions/ver-2',
      version('ver-2', { versionString: '9.9' }),
    );
    expect(other.body.errors[0]).toMatchObject({
      code: 'ENTITY_ERROR.ATTRIBUTE.NOT_ALLOWED',
      source: { pointer: '/data/attributes/versionString' },
    });
    expect((await call(token, 'GET', '/v1/appStoreVersions/ver-2')).body.data.attributes.copyright).toBe(
      '2026 Acme',
    );
  });

  it('lists the categories and sets an appInfo’s, refusing an unknown id and a live appInfo', async () => {
    const token = await appleToken(emu);
    const top = await call(token, 'GET', '/v1/appCategories?exists[parent]=false&limit=200');
    expect(top.body.data.map((c: any) => c.id)).toContain('WEATHER');
    expect(top.body.data).toHaveLength(26);
    const body = (id: string, category: string) => ({
      data: {
        type: 'appInfos',
        id,
        relationships: { primaryCategory: { data: { type: 'appCategories', id: category } } },
      },
    });
    expect((await call(token, 'PATCH', '/v1/appInfos/info-edit', body('info-edit', 'WEATHER'))).status).toBe(
      200,
    );
    expect((await call(token, 'GET', '/v1/appInfos/info-edit/primaryCategory')).body.data.id).toBe('WEATHER');
    expect((await call(token, 'GET', '/v1/appInfos/info-edit/secondaryCategory')).status).toBe(404);
    const unknown = await call(token, 'PATCH', '/v1/appInfos/info-edit', body('info-edit', 'WEATHERISH'));
    expect(unknown.body.errors[0]).toMatchObject({
      code: 'ENTITY_ERROR.RELATIONSHIP.INVALID',
      source: { pointer: '/data/relationships/primaryCategory' },
    });
    expect(
      (await call(token, 'PATCH', '/v1/appInfos/info-live', body('info-live', 'NEWS'))).body.errors[0].code,
    ).toBe('STATE_ERROR');
  });

  it('keeps one App Review detail per version, with the phone and notes rules', async () => {
    const token = await appleToken(emu);
    const create = (attributes: Record<string, unknown>) =>
      call(token, 'POST', '/v1/appStoreReviewDetails', {
        data: {
          type: 'appStoreReviewDetails',
          attributes,
          relationships: { appStoreVersion: { data: { type: 'appStoreVersions', id: 'ver-2' } } },
        },
      });
    const phone = await create({ contactPhone: '030 1234567' });
    expect(phone.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/contactPhone' } });
    const first = await create({ contactPhone: '+49 30 1234567', demoAccountPassword: 'pw-1' });
    expect(first.status).toBe(201);
    expect((await create({ notes: 'Again' })).status).toBe(409);
    const id = first.body.data.id as string;
    const notes = await call(token, 'PATCH', `/v1/appStoreReviewDetails/${id}`, {
      data: { type: 'appStoreReviewDetails', id, attributes: { notes: 'x' } },
    });
    expect(notes.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/notes' } });
    const read = await call(token, 'GET', '/v1/appStoreVersions/ver-2/appStoreReviewDetail');
    expect(read.body.data.attributes).toEqual({
      contactPhone: '+49 30 1234567',
      demoAccountPassword: 'pw-1',
    });
    expect((await call(token, 'GET', '/v1/appStoreVersions/ver-1/appStoreReviewDetail')).status).toBe(404);
  });
});

describe('Google Play details in the emulator', () => {
  const api = `/androidpublisher/v3/applications/${PACKAGE}`;

  it('PUT needs the default language, which must have a listing; a commit keeps a contact e-mail', async () => {
    const token = await googleToken(emu);
    const edit = (await call(token, 'POST', `${api}/edits`, {})).body.id as string;
    const put = await call(token, 'PUT', `${api}/edits/${edit}/details`, { contactEmail: 'dev@example.com' });
    expect(put.status).toBe(400);
    const language = await call(token, 'PATCH', `${api}/edits/${edit}/details`, { defaultLanguage: 'ja-JP' });
    expect(language.status).toBe(400);
    const patched = await call(token, 'PATCH', `${api}/edits/${edit}/details`, {
      contactWebsite: 'https://example.com',
    });
    expect(patched.body).toEqual({ defaultLanguage: 'en-US', contactWebsite: 'https://example.com' });
    const commit = await call(token, 'POST', `${api}/edits/${edit}:commit`);
    expect(commit.status).toBe(403);
    expect(commit.body.error.errors[0]).toMatchObject({ reason: 'noEmail', domain: 'androidpublisher' });
    expect(emu.play.apps.get(PACKAGE)!.contact).toEqual({});

    const again = (await call(token, 'POST', `${api}/edits`, {})).body.id as string;
    await call(token, 'PATCH', `${api}/edits/${again}/details`, { contactEmail: 'dev@example.com' });
    expect((await call(token, 'POST', `${api}/edits/${again}:commit`)).status).toBe(200);
    expect(emu.play.apps.get(PACKAGE)!.contact).toEqual({ contactEmail: 'dev@example.com' });
  });
});
