import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';
import { distinctColour, image, upload, video, withDeclaredSize, withTextChunk } from '../support/media.js';

let h: Harness;
let org: TestOrganization;
let admin: Actor;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
  admin = org.admin;
});
afterAll(() => h.close());

const linkedProject = async (owner: Actor = admin) =>
  (await h.given.project(owner, { appStoreAppId: '1', playStorePackageName: 'com.example.app' })).id;
const slotUrl = (project: string, store: string, locale: string, slot: string) =>
  `/api/v1/projects/${project}/media/${store}/${locale}/${slot}`;
const iphone = (colour = distinctColour()) => image({ width: 1290, height: 2796, colour });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

describe('GET /api/v1/media/slot-types', () => {
  it('names every slot as people call it, never by its raw id', async () => {
    const res = await admin.api.get('/api/v1/media/slot-types');
    expect(res.status).toBe(200);
    const names = new Map<string, string>(
      res.body.data.slotTypes.map((t: { store: string; slotType: string; name: string }) => [
        `${t.store}/${t.slotType}`,
        t.name,
      ]),
    );
    expect(names.get('appstore/APP_IPHONE_67')).toBe('iPhone 6.9″');
    expect(names.get('appstore/APP_IPAD_PRO_3GEN_129')).toBe('iPad 13″');
    expect(names.get('appstore/IMESSAGE_APP_IPHONE_65')).toBe('iMessage · iPhone 6.5″');
    expect(names.get('appstore/PREVIEW_IPHONE_67')).toBe('App preview · iPhone 6.9″');
    expect(names.get('playstore/phoneScreenshots')).toBe('Phone');
    expect(names.get('playstore/sevenInchScreenshots')).toBe('7-inch tablet');
    for (const [key, name] of names) {
      expect(name, key).not.toBe(key.split('/')[1]);
      expect(name, key).not.toContain('_');
    }
  });
});

describe('upload', () => {
  it('stores an App Store screenshot with what its bytes say, at the end of its slot', async () => {
    const project = await linkedProject();
    const first = await iphone();
    const res = await upload(h, admin.apiKey, slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'), first);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      sha256: sha256(first),
      md5: md5(first),
      width: 1290,
      height: 2796,
      bytes: first.length,
      contentType: 'image/png',
      kind: 'image',
      position: 1,
      fileName: 'shot.png',
      replaced: null,
      notVerified: [],
    });
    const second = await image({ width: 1320, height: 2868, format: 'jpeg', colour: distinctColour() });
    const res2 = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      second,
      'image/jpeg',
    );
    expect(res2.body.data).toMatchObject({ contentType: 'image/jpeg', position: 2 });

    const list = await admin.api.get(`/api/v1/projects/${project}/media?store=appstore`);
    expect(list.status).toBe(200);
    expect(list.body.data.slots).toHaveLength(1);
    expect(list.body.data.slots[0]).toMatchObject({
      store: 'appstore',
      locale: 'en-US',
      slotType: 'APP_IPHONE_67',
      kind: 'image',
      maxItems: 10,
      state: 'modified',
      base: null,
    });
    expect(list.body.data.slots[0].items.map((i: { sha256: string }) => i.sha256)).toEqual([
      sha256(first),
      sha256(second),
    ]);
  });

  it('accepts multipart/form-data with one file part', async () => {
    const project = await linkedProject();
    const bytes = await image({ width: 1080, height: 1920, colour: distinctColour() });
    const boundary = 'x-boundary-42';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="home.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await h.app.inject({
      method: 'POST',
      url: slotUrl(project, 'playstore', 'en-US', 'phoneScreenshots'),
      headers: {
        authorization: `Bearer ${admin.apiKey}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      payload: body,
    });
    expect(res.statusCode).toBe(201);
    expect(JSON.parse(res.body).data).toMatchObject({
      sha256: sha256(bytes),
      fileName: 'home.png',
      width: 1080,
    });
  });

  it.each([
    [
      'a size of another display type',
      'appstore',
      'APP_IPHONE_67',
      { width: 1284, height: 2778 },
      'file.dimensions',
      '1284×2778',
    ],
    [
      'an alpha channel on the App Store',
      'appstore',
      'APP_IPHONE_65',
      { width: 1242, height: 2688, alpha: true },
      'file.alpha',
      'alpha',
    ],
    [
      'a Play screenshot too small',
      'playstore',
      'phoneScreenshots',
      { width: 300, height: 600 },
      'file.dimensions',
      '300×600',
    ],
    [
      'a Play screenshot longer than twice its width',
      'playstore',
      'phoneScreenshots',
      { width: 1000, height: 2100 },
      'file.aspectRatio',
      '1000×2100',
    ],
    [
      'a feature graphic of the wrong size',
      'playstore',
      'featureGraphic',
      { width: 1024, height: 512 },
      'file.dimensions',
      '1024×512',
    ],
    ['an icon without alpha', 'playstore', 'icon', { width: 512, height: 512 }, 'file.alpha', 'no'],
    [
      'a JPEG icon',
      'playstore',
      'icon',
      { width: 512, height: 512, format: 'jpeg' as const },
      'file.format',
      'jpeg',
    ],
    [
      'a TV screenshot not 16:9',
      'playstore',
      'tvScreenshots',
      { width: 1000, height: 1000 },
      'file.aspectRatio',
      '1000×1000',
    ],
  ])('refuses %s, naming the rule and the actual values', async (_name, store, slot, spec, field, actual) => {
    const project = await linkedProject();
    const bytes = await image({ ...spec, colour: distinctColour() });
    const res = await upload(h, admin.apiKey, slotUrl(project, store, 'en-US', slot), bytes);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(res.body.error.message).toContain(actual);
    const list = await admin.api.get(`/api/v1/projects/${project}/media`);
    expect(list.body.data.slots).toEqual([]);
  });

  it('reads the format from the bytes: a WebP named .png is refused as WebP', async () => {
    const project = await linkedProject();
    const webp = await image({ width: 1290, height: 2796, format: 'webp' });
    const res = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      webp,
      'image/png',
      'fake.png',
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('file.format');
    expect(res.body.error.message).toContain('WEBP');
  });

  it('refuses the same file twice in a slot with 409 (App Store Connect cannot order such a set)', async () => {
    const project = await linkedProject();
    const bytes = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const url = slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67');
    const first = await upload(h, admin.apiKey, url, bytes, 'image/png', 'one.png');
    expect(first.status).toBe(201);
    const again = await upload(h, admin.apiKey, url, bytes, 'image/png', 'two.png');
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(first.body.data.id);
    expect(again.body.error.message).toContain('one.png');
    const media = await admin.api.get(`/api/v1/projects/${project}/media`);
    const slot = media.body.data.slots.find((s: { slotType: string }) => s.slotType === 'APP_IPHONE_67');
    expect(slot.items).toHaveLength(1);
    // The same file in another slot is fine.
    const elsewhere = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'de-DE', 'APP_IPHONE_67'),
      bytes,
    );
    expect(elsewhere.status).toBe(201);
  });

  it('refuses a truncated PNG', async () => {
    const project = await linkedProject();
    const whole = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const res = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      whole.subarray(0, Math.floor(whole.length / 2)),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/truncated or corrupt/);
    expect(res.body.error.message).not.toMatch(/spool|\/tmp/);
  });

  it('refuses an image over the pixel limit as such, not as a corrupt file', async () => {
    const project = await linkedProject();
    const huge = withDeclaredSize(await image({ width: 1290, height: 2796 }), 12_000, 9_000);
    const res = await upload(h, admin.apiKey, slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'), huge);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('12000 × 9000 pixels');
    expect(res.body.error.message).not.toMatch(/corrupt|vips|limit exceeded/i);
  });

  it('answers 413 past the slot byte limit while the body streams', async () => {
    const project = await linkedProject();
    // Play's icon takes at most 1 MiB; the body is 2 MiB of PNG signature and noise.
    const big = Buffer.concat([
      await image({ width: 512, height: 512, alpha: true }),
      Buffer.alloc(2 * 1024 * 1024, 1),
    ]);
    const res = await upload(h, admin.apiKey, slotUrl(project, 'playstore', 'en-US', 'icon'), big);
    expect(res.status).toBe(413);
    expect(res.body.error.details[0]).toMatchObject({ field: 'file.bytes', limit: 1024 * 1024 });
  });

  it('refuses an unknown slot type, a locale of the other store and an unlinked store before reading', async () => {
    const project = await linkedProject();
    const bytes = await iphone();
    const bad = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'phoneScreenshots'),
      bytes,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('slotType');
    const locale = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'ja-JP', 'APP_IPHONE_67'),
      bytes,
    );
    expect(locale.body.error.details[0].field).toBe('locale');
    const unlinked = (await h.given.project(admin, { appStoreAppId: '1' })).id;
    const store = await upload(
      h,
      admin.apiKey,
      slotUrl(unlinked, 'playstore', 'en-US', 'phoneScreenshots'),
      bytes,
    );
    expect(store.status).toBe(400);
    expect(store.body.error.details[0].field).toBe('store');
    const type = await h.app.inject({
      method: 'POST',
      url: slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      headers: { authorization: `Bearer ${admin.apiKey}`, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(type.statusCode).toBe(415);
  });

  it('holds at most the slot count: the 11th App Store screenshot and the 9th Play one are refused', async () => {
    const project = await linkedProject();
    const base = await iphone();
    for (let i = 0; i < 10; i += 1) {
      const res = await upload(
        h,
        admin.apiKey,
        slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
        withTextChunk(base, `n${i}`),
      );
      expect(res.status).toBe(201);
    }
    const eleventh = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      withTextChunk(base, 'n10'),
    );
    expect(eleventh.status).toBe(400);
    expect(eleventh.body.error.details[0]).toMatchObject({ field: 'file.count', limit: 10, length: 10 });

    const play = await image({ width: 1080, height: 1920, colour: distinctColour() });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        upload(
          h,
          admin.apiKey,
          slotUrl(project, 'playstore', 'en-US', 'phoneScreenshots'),
          withTextChunk(play, `p${i}`),
        ),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(8);
    expect(results.filter((r) => r.status === 400)).toHaveLength(4);
  });

  it('replaces the image of a single-image slot', async () => {
    const project = await linkedProject();
    const url = slotUrl(project, 'playstore', 'en-US', 'featureGraphic');
    const first = await upload(
      h,
      admin.apiKey,
      url,
      await image({ width: 1024, height: 500, colour: distinctColour() }),
    );
    const second = await upload(
      h,
      admin.apiKey,
      url,
      await image({ width: 1024, height: 500, colour: distinctColour() }),
    );
    expect(second.body.data.replaced).toBe(first.body.data.id);
    const list = await admin.api.get(`/api/v1/projects/${project}/media?store=playstore&locale=en-US`);
    expect(list.body.data.slots[0].items.map((i: { id: string }) => i.id)).toEqual([second.body.data.id]);
  });

  it('takes app previews, reading duration and size from the MP4 header', async () => {
    const project = await linkedProject();
    const url = slotUrl(project, 'appstore', 'en-US', 'PREVIEW_IPHONE_67');
    const good = await upload(
      h,
      admin.apiKey,
      url,
      video({ width: 886, height: 1920, seconds: 20 }),
      'video/mp4',
      'demo.mp4',
    );
    expect(good.status).toBe(201);
    expect(good.body.data).toMatchObject({
      kind: 'video',
      contentType: 'video/mp4',
      width: 886,
      height: 1920,
      durationMs: 20000,
      thumbnailUrl: null,
    });
    const short = await upload(
      h,
      admin.apiKey,
      url,
      video({ width: 886, height: 1920, seconds: 5 }),
      'video/mp4',
    );
    expect(short.status).toBe(400);
    expect(short.body.error.details[0].field).toBe('file.duration');
    expect(short.body.error.message).toContain('5.0 s');
    const unknownSize = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'PREVIEW_IPHONE_61'),
      video({ width: 800, height: 1700, seconds: 16 }),
      'video/mp4',
    );
    expect(unknownSize.status).toBe(201);
    expect(unknownSize.body.data.notVerified).toEqual(['dimensions']);
    const image = await upload(h, admin.apiKey, url, await iphone(), 'image/png');
    expect(image.body.error.details[0].field).toBe('file.format');
  });
});

describe('order, removal, history', () => {
  it('reorders with an exact permutation, removes, and reverts to an earlier set and order', async () => {
    const project = await linkedProject();
    const url = slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67');
    const base = await iphone();
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push((await upload(h, admin.apiKey, url, withTextChunk(base, `o${n}`))).body.data.id);
    const [a, b, c] = ids as [string, string, string];

    const wrong = await h.client(admin.apiKey).request('PUT', `${url}/order`, { items: [a, b] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toContain(`missing ${c}`);
    const reordered = await h.client(admin.apiKey).request('PUT', `${url}/order`, { items: [c, a, b] });
    expect(reordered.status).toBe(200);
    expect(
      reordered.body.data.slot.items.map((i: { id: string; position: number }) => [i.id, i.position]),
    ).toEqual([
      [c, 1],
      [a, 2],
      [b, 3],
    ]);

    const removed = await admin.api.delete(`${url}/${a}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data.slot.items.map((i: { id: string }) => i.id)).toEqual([c, b]);
    expect((await admin.api.delete(`${url}/${a}`)).status).toBe(404);

    const history = await admin.api.get(`${url}/history`);
    expect(history.body.data.entries.map((e: { source: string }) => e.source)).toEqual([
      'remove',
      'reorder',
      'upload',
      'upload',
      'upload',
    ]);
    const reorderEntry = history.body.data.entries[1];
    const reverted = await admin.api.post(`${url}/revert`, { historyId: reorderEntry.id });
    expect(reverted.status).toBe(200);
    expect(reverted.body.data.slot.items.map((i: { id: string }) => i.id)).toEqual([a, b, c]);
    const after = await admin.api.get(`${url}/history`);
    expect(after.body.data.entries[0].source).toBe('revert');
  });
});

describe('copy', () => {
  it('copies a locale to another, to every locale, and App Store iPhone shots to Play phone screenshots', async () => {
    const project = await linkedProject();
    for (const locale of ['de-DE', 'fr-FR', 'ja']) {
      await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/${locale}`, {
        name: `App ${locale}`,
      });
    }
    const shot = await upload(
      h,
      admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_55'),
      await image({ width: 1242, height: 2208, colour: distinctColour() }),
    );
    expect(shot.status).toBe(201);
    const one = await admin.api.post(`/api/v1/projects/${project}/media/copy`, {
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'appstore', locale: 'en-GB' },
    });
    expect(one.status).toBe(200);
    expect(one.body.data.copied).toEqual([{ from: 'APP_IPHONE_55', to: 'APP_IPHONE_55', items: 1 }]);
    expect(one.body.data.slots[0].items[0].sha256).toBe(shot.body.data.sha256);

    const all = await admin.api.post(`/api/v1/projects/${project}/media/copy`, {
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'appstore', locale: '*' },
    });
    expect(all.status).toBe(200);
    expect(all.body.data.slots.map((s: { locale: string }) => s.locale).sort()).toEqual([
      'de-DE',
      'en-GB',
      'fr-FR',
      'ja',
    ]);

    const cross = await admin.api.post(`/api/v1/projects/${project}/media/copy`, {
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'playstore' },
    });
    expect(cross.status).toBe(200);
    expect(cross.body.data.copied).toEqual([{ from: 'APP_IPHONE_55', to: 'phoneScreenshots', items: 1 }]);
    expect(cross.body.data.slots[0]).toMatchObject({
      store: 'playstore',
      locale: 'en-US',
      slotType: 'phoneScreenshots',
    });

    // 1290×2796 is more than twice as long as wide: Play refuses it, and nothing is copied.
    await upload(h, admin.apiKey, slotUrl(project, 'appstore', 'de-DE', 'APP_IPHONE_67'), await iphone());
    const refused = await admin.api.post(`/api/v1/projects/${project}/media/copy`, {
      from: { store: 'appstore', locale: 'de-DE' },
      to: { store: 'playstore' },
      slotTypes: ['APP_IPHONE_67'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].field).toBe('slotTypes[0].items[0].aspectRatio');
    const playDe = await admin.api.get(`/api/v1/projects/${project}/media?store=playstore&locale=de-DE`);
    expect(playDe.body.data.slots).toEqual([]);
  });
});

describe('diff and approval', () => {
  it('shows media changes in the diff and binds the approval hash to them', async () => {
    const approvalOrg = await h.given.organization();
    await approvalOrg.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    const project = await linkedProject(approvalOrg.admin);
    const before = await approvalOrg.admin.api.get(`/api/v1/projects/${project}/diff`);
    expect(before.body.data).toMatchObject({ inSync: true, mediaChangeCount: 0, media: {} });

    const bytes = await iphone();
    const res = await upload(
      h,
      approvalOrg.admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      bytes,
    );
    const diff = await approvalOrg.admin.api.get(`/api/v1/projects/${project}/diff`);
    expect(diff.body.data).toMatchObject({ inSync: false, changeCount: 0, mediaChangeCount: 1 });
    expect(diff.body.data.media.appstore['en-US'].APP_IPHONE_67).toEqual({
      old: [],
      new: [sha256(bytes)],
      added: [sha256(bytes)],
      removed: [],
      reordered: false,
      uploadBytes: bytes.length,
    });
    const approved = await approvalOrg.admin.api.post(`/api/v1/projects/${project}/approvals`, {
      hash: diff.body.data.hash,
    });
    expect(approved.status).toBe(201);
    expect(
      (await approvalOrg.admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.approval.approved,
    ).toBe(true);

    // Any media change voids the approval.
    await approvalOrg.admin.api.delete(
      `${slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67')}/${res.body.data.id}`,
    );
    await upload(
      h,
      approvalOrg.admin.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      withTextChunk(bytes, 'x'),
    );
    const changed = await approvalOrg.admin.api.get(`/api/v1/projects/${project}/diff`);
    expect(changed.body.data.hash).not.toBe(diff.body.data.hash);
    expect(changed.body.data.approval.approved).toBe(false);
  });
});

describe('storage', () => {
  it('stores the same bytes once for 40 locales and counts them once', async () => {
    const storageOrg = await h.given.organization({ plan: 'free' });
    const project = await linkedProject(storageOrg.admin);
    const bytes = await iphone();
    const locales = [
      'ar-SA',
      'ca',
      'cs',
      'da',
      'de-DE',
      'el',
      'en-AU',
      'en-CA',
      'en-GB',
      'en-US',
      'es-ES',
      'es-MX',
      'fi',
      'fr-CA',
      'fr-FR',
      'he',
      'hi',
      'hr',
      'hu',
      'id',
      'it',
      'ja',
      'ko',
      'ms',
      'nl-NL',
      'no',
      'pl',
      'pt-BR',
      'pt-PT',
      'ro',
      'ru',
      'sk',
      'sv',
      'th',
      'tr',
      'uk',
      'vi',
      'zh-Hans',
      'zh-Hant',
      'bn-BD',
    ];
    expect(locales).toHaveLength(40);
    for (const locale of locales) {
      const res = await upload(
        h,
        storageOrg.admin.apiKey,
        slotUrl(project, 'appstore', locale, 'APP_IPHONE_67'),
        bytes,
      );
      expect(res.status).toBe(201);
    }
    const blobs = await h.db.kysely
      .selectFrom('blobs')
      .select('sha256')
      .where('sha256', '=', sha256(bytes))
      .execute();
    expect(blobs).toHaveLength(1);
    const org = await storageOrg.admin.api.get('/api/v1/organization');
    expect(org.body.data.usage).toEqual({ mediaBytes: bytes.length, mediaBytesLimit: 1024 ** 3 });
    const usage = await storageOrg.admin.api.get('/api/v1/organization/usage');
    expect(usage.body.data.mediaBytes).toEqual({ used: bytes.length, limit: 1024 ** 3 });
    const list = await storageOrg.admin.api.get(`/api/v1/projects/${project}/media`);
    expect(list.body.data.slots).toHaveLength(40);
  });

  it('keeps the plan limit exact under parallel uploads', async () => {
    const quotaOrg = await h.given.organization({ plan: 'free' });
    const project = await linkedProject(quotaOrg.admin);
    const bytes = await image({ width: 1080, height: 1920, colour: distinctColour() });
    const files = Array.from({ length: 8 }, (_, i) => withTextChunk(bytes, `q${i}`));
    // Room for exactly 5 of the 8 files (3 bytes to spare).
    await h.db.kysely
      .updateTable('organizations')
      .set({ media_bytes: 1024 ** 3 - files[0]!.length * 5 - 3 })
      .where('id', '=', quotaOrg.id)
      .execute();
    const results = await Promise.all(
      files.map((file) =>
        upload(h, quotaOrg.admin.apiKey, slotUrl(project, 'playstore', 'en-US', 'phoneScreenshots'), file),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.body.error.code).toBe('USAGE_LIMIT_EXCEEDED');
    const org = await quotaOrg.admin.api.get('/api/v1/organization');
    expect(org.body.data.usage.mediaBytes).toBe(1024 ** 3 - 3);
    // Refused files are not kept until collection: exactly the 5 accepted ones are stored.
    const stored = await Promise.all(files.map((file) => storedFile(file)));
    expect(stored.filter(Boolean)).toHaveLength(5);
  });

  it('refuses a file over the quota before storing any of its bytes', async () => {
    const quotaOrg = await h.given.organization({ plan: 'free' });
    const project = await linkedProject(quotaOrg.admin);
    const file = await image({ width: 1080, height: 1920, colour: distinctColour() });
    await h.db.kysely
      .updateTable('organizations')
      .set({ media_bytes: 1024 ** 3 - file.length + 1 })
      .where('id', '=', quotaOrg.id)
      .execute();
    const res = await upload(
      h,
      quotaOrg.admin.apiKey,
      slotUrl(project, 'playstore', 'en-US', 'phoneScreenshots'),
      file,
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('USAGE_LIMIT_EXCEEDED');
    expect(res.body.error.message).toContain(`the file needs ${file.length}`);
    expect(await storedFile(file)).toBe(false);
  });
});

/** Whether the blob store holds these bytes (stored by content). */
async function storedFile(bytes: Buffer): Promise<boolean> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return h.services.blobs.exists(`files/${sha256.slice(0, 2)}/${sha256}`);
}

describe('GET /api/v1/media/:sha256', () => {
  it('serves the bytes with ETag, Range and a thumbnail, to the organization that uses them only', async () => {
    const project = await linkedProject();
    const bytes = await iphone();
    const res = await upload(h, admin.apiKey, slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'), bytes);
    const url = res.body.data.url as string;
    const get = (headers: Record<string, string> = {}, path = url) =>
      h.app.inject({
        method: 'GET',
        url: path,
        headers: { authorization: `Bearer ${admin.apiKey}`, ...headers },
      });

    const whole = await get();
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    expect(whole.headers).toMatchObject({
      'content-type': 'image/png',
      etag: `"${sha256(bytes)}"`,
      'accept-ranges': 'bytes',
      'cache-control': 'private, max-age=31536000, immutable',
    });
    const part = await get({ range: 'bytes=8-15' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 8-15/${bytes.length}`);
    expect(part.rawPayload.equals(bytes.subarray(8, 16))).toBe(true);
    expect((await get({ range: `bytes=${bytes.length + 10}-` })).statusCode).toBe(416);
    expect((await get({ 'if-none-match': `"${sha256(bytes)}"` })).statusCode).toBe(304);

    const thumb = await get({}, res.body.data.thumbnailUrl);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');

    const meta = await sharp(thumb.rawPayload).metadata();
    expect(meta.format).toBe('webp');
    expect(Math.max(meta.width, meta.height)).toBe(320);

    const stranger = await h.given.organization();
    const foreign = await h.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${stranger.admin.apiKey}` },
    });
    expect(foreign.statusCode).toBe(404);
    expect(JSON.parse(foreign.body).error.code).toBe('NOT_FOUND');
  });
});

describe('roles', () => {
  it('lets viewers read media but not upload', async () => {
    const project = await linkedProject();
    const viewer = await h.given.member(org, 'viewer');
    const member = await h.given.member(org, 'member');
    const bytes = await iphone();
    expect(
      (await upload(h, viewer.apiKey, slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'), bytes)).status,
    ).toBe(403);
    expect(
      (await upload(h, member.apiKey, slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'), bytes)).status,
    ).toBe(201);
    expect((await viewer.api.get(`/api/v1/projects/${project}/media`)).status).toBe(200);
  });
});
