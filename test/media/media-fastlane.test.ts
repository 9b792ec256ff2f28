/** Screenshots and previews through fastlane trees: deliver's and supply's layouts, as tar.gz. */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness } from '../support/harness.js';
import { distinctColour, image, video } from '../support/media.js';

let h: Harness;
let admin: Actor;

beforeAll(async () => {
  h = await startHarness();
  admin = (await h.given.organization()).admin;
});
afterAll(() => h.close());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const linked = async () =>
  (await h.given.project(admin, { appStoreAppId: '1', playStorePackageName: 'com.example.tree' })).id;

async function tarGz(files: Record<string, Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, bytes] of Object.entries(files)) pack.entry({ name }, bytes);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return zlib.gzipSync(Buffer.concat(chunks));
}

async function untar(archive: Buffer): Promise<Map<string, Buffer>> {
  const extract = tar.extract();
  const files = new Map<string, Buffer>();
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      files.set(entry.header.name, Buffer.concat(chunks));
    }
  })();
  extract.end(zlib.gunzipSync(archive));
  await done;
  return files;
}

const importTree = async (project: string, archive: Buffer) => {
  const res = await h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${project}/media/import`,
    headers: { authorization: `Bearer ${admin.apiKey}`, 'content-type': 'application/gzip' },
    payload: archive,
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
};

describe('media import from a fastlane tree', () => {
  it("places deliver's screenshots by pixel size, with its special cases, and supply's images by folder", async () => {
    const project = await linked();
    const files = {
      'fastlane/screenshots/en-US/01_home.png': await image({
        width: 1290,
        height: 2796,
        colour: distinctColour(),
      }),
      'fastlane/screenshots/en-US/02_map.png': await image({
        width: 1290,
        height: 2796,
        colour: distinctColour(),
      }),
      // The framed twin wins over the plain file.
      'fastlane/screenshots/en-US/02_map_framed.png': await image({
        width: 1320,
        height: 2868,
        colour: distinctColour(),
      }),
      'fastlane/screenshots/en-US/ipad.png': await image({
        width: 2048,
        height: 2732,
        colour: distinctColour(),
      }),
      'fastlane/screenshots/en-US/app_ipad_pro_129 old.png': await image({
        width: 2048,
        height: 2732,
        colour: distinctColour(),
      }),
      'fastlane/screenshots/appleTV/en-US/tv.png': await image({
        width: 1920,
        height: 1080,
        colour: distinctColour(),
      }),
      'fastlane/screenshots/iMessage/en-US/chat.png': await image({
        width: 1242,
        height: 2208,
        colour: distinctColour(),
      }),
      'fastlane/app_previews/en-US/IPHONE_67_demo.mp4': video({ width: 886, height: 1920, seconds: 18 }),
      'fastlane/metadata/android/de-DE/images/phoneScreenshots/b.png': await image({
        width: 1080,
        height: 1920,
        colour: distinctColour(),
      }),
      'fastlane/metadata/android/de-DE/images/phoneScreenshots/a.png': await image({
        width: 1080,
        height: 1920,
        colour: distinctColour(),
      }),
      'fastlane/metadata/android/de-DE/images/featureGraphic.png': await image({
        width: 1024,
        height: 500,
        colour: distinctColour(),
      }),
      'fastlane/metadata/android/de-DE/images/icon.png': await image({
        width: 512,
        height: 512,
        alpha: true,
      }),
      'fastlane/metadata/en-US/name.txt': Buffer.from('Texts are imported by /import'),
      'fastlane/Fastfile': Buffer.from('lane :release do end'),
    };
    const res = await importTree(project, await tarGz(files));
    expect(res.status).toBe(200);
    const imported = Object.fromEntries(
      res.body.data.imported.map((i: { store: string; locale: string; slotType: string; items: number }) => [
        `${i.store}/${i.locale}/${i.slotType}`,
        i.items,
      ]),
    );
    expect(imported).toEqual({
      'appstore/en-US/APP_IPHONE_67': 2,
      'appstore/en-US/APP_IPAD_PRO_3GEN_129': 1,
      'appstore/en-US/APP_IPAD_PRO_129': 1,
      'appstore/en-US/APP_APPLE_TV': 1,
      'appstore/en-US/IMESSAGE_APP_IPHONE_55': 1,
      'appstore/en-US/PREVIEW_IPHONE_67': 1,
      'playstore/de-DE/phoneScreenshots': 2,
      'playstore/de-DE/featureGraphic': 1,
      'playstore/de-DE/icon': 1,
    });
    expect(res.body.data.skipped).toEqual(
      expect.arrayContaining([
        { path: 'fastlane/screenshots/en-US/02_map.png', reason: 'its _framed twin is imported instead' },
        expect.objectContaining({ path: 'fastlane/Fastfile' }),
        expect.objectContaining({ path: 'fastlane/metadata/en-US/name.txt' }),
      ]),
    );
    const list = await admin.api.get(`/api/v1/projects/${project}/media?store=playstore&locale=de-DE`);
    const phone = list.body.data.slots.find((s: { slotType: string }) => s.slotType === 'phoneScreenshots');
    // Sorted by file name, as supply uploads them.
    expect(phone.items.map((i: { sha256: string }) => i.sha256)).toEqual([
      sha256(files['fastlane/metadata/android/de-DE/images/phoneScreenshots/a.png']),
      sha256(files['fastlane/metadata/android/de-DE/images/phoneScreenshots/b.png']),
    ]);
    const history = await admin.api.get(
      `/api/v1/projects/${project}/media/playstore/de-DE/phoneScreenshots/history`,
    );
    expect(history.body.data.entries[0].source).toBe('import');
  });

  it('changes nothing when one file breaks a rule, and names its path', async () => {
    const project = await linked();
    const res = await importTree(
      project,
      await tarGz({
        'fastlane/metadata/android/en-US/images/phoneScreenshots/1.png': await image({
          width: 1080,
          height: 1920,
          colour: distinctColour(),
        }),
        'fastlane/metadata/android/en-US/images/phoneScreenshots/2.png': await image({
          width: 1080,
          height: 2400,
          colour: distinctColour(),
        }),
        'fastlane/screenshots/en-US/odd.png': await image({
          width: 1000,
          height: 1000,
          colour: distinctColour(),
        }),
        'fastlane/screenshots/xx-XX/a.png': await image({
          width: 1290,
          height: 2796,
          colour: distinctColour(),
        }),
      }),
    );
    expect(res.status).toBe(400);
    const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual([
      'fastlane/metadata/android/en-US/images/phoneScreenshots/2.png',
      'fastlane/screenshots/en-US/odd.png',
      'fastlane/screenshots/xx-XX/a.png',
    ]);
    expect((await admin.api.get(`/api/v1/projects/${project}/media`)).body.data.slots).toEqual([]);
  });

  it('refuses a tree with the same file twice in one slot, naming the second', async () => {
    const project = await linked();
    const same = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const res = await importTree(
      project,
      await tarGz({ 'fastlane/screenshots/en-US/1.png': same, 'fastlane/screenshots/en-US/2.png': same }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({
        field: 'fastlane/screenshots/en-US/2.png',
        message: expect.stringContaining('same file as fastlane/screenshots/en-US/1.png'),
      }),
    ]);
  });

  it('refuses what is not a tar.gz, and a file over its slot limit with 413', async () => {
    const project = await linked();
    expect((await importTree(project, Buffer.from('not an archive'))).status).toBe(400);
    const big = Buffer.concat([
      await image({ width: 512, height: 512, alpha: true }),
      Buffer.alloc(2 * 1024 * 1024, 7),
    ]);
    const res = await importTree(
      project,
      await tarGz({ 'fastlane/metadata/android/en-US/images/icon.png': big }),
    );
    expect(res.status).toBe(413);
    expect(res.body.error.details[0].field).toBe('fastlane/metadata/android/en-US/images/icon.png.bytes');
  });
});

describe('media export', () => {
  it('round-trips: the exported tree imported into another project gives the same slots', async () => {
    const project = await linked();
    const tree = {
      'fastlane/screenshots/en-US/a.png': await image({
        width: 1290,
        height: 2796,
        colour: distinctColour(),
      }),
      'fastlane/screenshots/en-US/b.jpg': await image({
        width: 1320,
        height: 2868,
        format: 'jpeg',
        colour: distinctColour(),
      }),
      'fastlane/screenshots/appleTV/fr-FR/tv.png': await image({
        width: 1920,
        height: 1080,
        colour: distinctColour(),
      }),
      'fastlane/metadata/android/en-US/images/tenInchScreenshots/1.png': await image({
        width: 1600,
        height: 2560,
        colour: distinctColour(),
      }),
      'fastlane/metadata/android/en-US/images/tvBanner.png': await image({
        width: 1280,
        height: 720,
        colour: distinctColour(),
      }),
    };
    expect((await importTree(project, await tarGz(tree))).status).toBe(200);
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${project}/media/export`,
      headers: { authorization: `Bearer ${admin.apiKey}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    const exported = await untar(res.rawPayload);
    expect([...exported.keys()].sort()).toEqual([
      'fastlane/metadata/android/en-US/images/tenInchScreenshots/01.png',
      'fastlane/metadata/android/en-US/images/tvBanner.png',
      'fastlane/screenshots/appleTV/fr-FR/APP_APPLE_TV_01.png',
      'fastlane/screenshots/en-US/APP_IPHONE_67_01.png',
      'fastlane/screenshots/en-US/APP_IPHONE_67_02.jpg',
    ]);
    expect(
      exported
        .get('fastlane/screenshots/en-US/APP_IPHONE_67_02.jpg')!
        .equals(tree['fastlane/screenshots/en-US/b.jpg']),
    ).toBe(true);

    const other = await linked();
    expect((await importTree(other, res.rawPayload)).status).toBe(200);
    const shape = async (id: string) =>
      (await admin.api.get(`/api/v1/projects/${id}/media`)).body.data.slots.map(
        (s: { store: string; locale: string; slotType: string; items: { sha256: string }[] }) => [
          s.store,
          s.locale,
          s.slotType,
          s.items.map((i) => i.sha256),
        ],
      );
    expect(await shape(other)).toEqual(await shape(project));
    // Importing the same tree again changes nothing.
    const again = await importTree(other, res.rawPayload);
    expect(again.body.data.imported).toEqual([]);
  });
});
