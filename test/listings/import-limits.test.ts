/**
 * POST /projects/:projectId/import treats every archive as hostile: bombs (flat, nested, lying
 * about their size) are refused quickly without the process growing, hostile names and zip
 * structures are refused with a message naming them, and a caller who may not import is refused
 * before the body is read.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';
import { buildZip, deflatedZeros, entry, zerosCrc } from '../support/zip.js';

let h: Harness;
let org: TestOrganization;
let admin: Actor;
/** 1 MiB of deflate that expands to 1 GiB of zeros. */
let gigabyteDeflate: Buffer;
let gigabyteCrc: number;
/** A tar.gz of about 1 MiB holding one 1 GiB file. */
let tarBomb: Buffer;

const DESCRIPTION = 'fastlane/metadata/en-US/description.txt';

async function gzippedTarOfZeros(name: string, megabytes: number): Promise<Buffer> {
  const pack = tar.pack();
  const gzip = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => gzip.on('end', resolve));
  pack.pipe(gzip);
  const stream = pack.entry({ name, size: megabytes * 1024 * 1024 });
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < megabytes; i++) {
    if (!stream.write(zeros)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
  stream.end(Buffer.alloc(0));
  pack.finalize();
  await ended;
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
  admin = org.admin;
  [gigabyteDeflate, tarBomb] = await Promise.all([
    deflatedZeros(1024, true),
    gzippedTarOfZeros(DESCRIPTION, 1024),
  ]);
  gigabyteCrc = zerosCrc(1024);
}, 60_000);
afterAll(() => h.close());

const newProject = async () => (await h.given.project(admin, { appStoreAppId: '1' })).id;

async function importArchive(project: string, body: Buffer, contentType = 'application/zip', actor = admin) {
  const res = await h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${project}/import`,
    headers: { authorization: `Bearer ${actor.apiKey}`, 'content-type': contentType },
    payload: body,
  });
  return { status: res.statusCode, body: res.json() };
}

/** Runs an import and answers its result, how long it took and how much the process grew. */
async function measured(project: string, body: Buffer, contentType?: string) {
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const result = await importArchive(project, body, contentType);
  return {
    ...result,
    ms: performance.now() - started,
    grownMb: (process.memoryUsage().rss - rssBefore) / 1024 / 1024,
  };
}

describe('archive bombs', () => {
  it('refuses a 1 MB zip that expands to 1 GB in under a second, without the process growing', async () => {
    expect(gigabyteDeflate.length).toBeLessThan(1.2 * 1024 * 1024);
    const bomb = buildZip([
      { name: DESCRIPTION, data: gigabyteDeflate, method: 8, size: 1024 ** 3, crc: gigabyteCrc },
    ]);
    const res = await measured(await newProject(), bomb.buffer);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(res.body.error.message).toMatch(/description\.txt expands to 1024 MiB, more than the 5 MiB/);
    expect(res.ms).toBeLessThan(1_000);
    expect(res.grownMb).toBeLessThan(50);
  });

  it('stops an entry that declares a small size but expands to 1 GB while inflating it', async () => {
    const liar = buildZip([{ name: DESCRIPTION, data: gigabyteDeflate, method: 8, size: 1_000, crc: 0 }]);
    const res = await measured(await newProject(), liar.buffer);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/expands past the size its zip record declares/);
    expect(res.ms).toBeLessThan(1_000);
    expect(res.grownMb).toBeLessThan(50);
  });

  it('refuses a tar.gz that expands to 1 GB in under a second, without the process growing', async () => {
    const res = await measured(await newProject(), tarBomb, 'application/gzip');
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/more than 20 MiB|compressed more than 100:1|more than the 5 MiB/);
    expect(res.ms).toBeLessThan(1_000);
    expect(res.grownMb).toBeLessThan(50);
  });

  it('never expands a bomb nested inside the archive (zip in zip, tar.gz in tar.gz)', async () => {
    const inner = buildZip([
      { name: DESCRIPTION, data: gigabyteDeflate, method: 8, size: 1024 ** 3, crc: gigabyteCrc },
    ]).buffer;
    const outerZip = buildZip([
      entry('fastlane/metadata/en-US/name.txt', 'Weather Pro'),
      entry('fastlane/metadata/bomb.zip', inner, 0),
      entry('fastlane/metadata/bomb.tar.gz', tarBomb, 0),
    ]).buffer;
    const zipped = await measured(await newProject(), outerZip);
    expect(zipped.status).toBe(200);
    expect(zipped.body.data.skipped).toEqual([
      { path: 'fastlane/metadata/bomb.tar.gz', reason: 'not a text file' },
      { path: 'fastlane/metadata/bomb.zip', reason: 'not a text file' },
    ]);
    expect(zipped.ms).toBeLessThan(1_000);
    expect(zipped.grownMb).toBeLessThan(50);

    const pack = tar.pack();
    pack.entry({ name: 'fastlane/metadata/en-US/name.txt' }, 'Weather Pro');
    pack.entry({ name: 'fastlane/metadata/bomb.tar.gz' }, tarBomb);
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    const tarred = await measured(
      await newProject(),
      zlib.gzipSync(Buffer.concat(chunks)),
      'application/gzip',
    );
    expect(tarred.status).toBe(200);
    expect(tarred.body.data.skipped).toEqual([
      { path: 'fastlane/metadata/bomb.tar.gz', reason: 'not a text file' },
    ]);
    expect(tarred.ms).toBeLessThan(1_000);
    expect(tarred.grownMb).toBeLessThan(50);
  });

  it('refuses a body over 10 MiB with 413', async () => {
    const big = Buffer.concat([buildZip([entry('a.txt', 'x')]).buffer, Buffer.alloc(11 * 1024 * 1024)]);
    const res = await importArchive(await newProject(), big);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toBe('The archive is larger than 10 MiB');
  });
});

describe('hostile archive structure', () => {
  const refused = async (zip: Buffer, pattern: RegExp, status = 400) => {
    const project = await newProject();
    const res = await importArchive(project, zip);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.message).toMatch(pattern);
    // Nothing of the archive was written.
    expect((await admin.api.get(`/api/v1/projects/${project}/listings`)).body.data.listings).toEqual([]);
  };
  const valid = entry('fastlane/metadata/en-US/name.txt', 'Weather Pro');

  it.each([
    ['fastlane/../../etc/passwd.txt', /points outside the archive/],
    ['/etc/passwd.txt', /absolute path/],
    ['C:/Windows/evil.txt', /absolute path/],
    ['fastlane\\metadata\\en-US\\name.txt', /must use \/ and not \\/],
    ['fastlane/metadata/en-US/na\0me.txt', /NUL character/],
    [`${'deep/'.repeat(17)}name.txt`, /nested deeper than 16 folders/],
  ])('refuses the entry name %j', async (name, pattern) => {
    await refused(buildZip([valid, entry(name, 'x')]).buffer, pattern);
  });

  it('refuses a name that appears twice', async () => {
    await refused(
      buildZip([valid, entry(valid.name, 'Other')]).buffer,
      /holds fastlane\/metadata\/en-US\/name\.txt twice/,
    );
  });

  it('refuses symbolic links in zip and tar archives', async () => {
    const link = { ...entry('fastlane/metadata/en-US/description.txt', '/etc/passwd', 0), mode: 0o120777 };
    await refused(buildZip([valid, link]).buffer, /is a symbolic link/);

    const pack = tar.pack();
    pack.entry({ name: 'fastlane/metadata/en-US/name.txt' }, 'Weather Pro');
    pack.entry({ name: 'fastlane/metadata/en-US/description.txt', type: 'symlink', linkname: '/etc/passwd' });
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    const res = await importArchive(
      await newProject(),
      zlib.gzipSync(Buffer.concat(chunks)),
      'application/gzip',
    );
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/description\.txt is a link/);
  });

  it('refuses zip records that overlap (the overlapping-files bomb)', async () => {
    const built = buildZip([
      entry('fastlane/metadata/en-US/name.txt', 'Weather Pro', 0),
      entry('fastlane/metadata/en-US/subtitle.txt', 'Rain', 0),
    ]);
    // The first record's data now claims the second record's bytes too.
    const zip = Buffer.from(built.buffer);
    const firstCentral = built.centralOffsets[0]!;
    zip.writeUInt32LE(zip.readUInt32LE(firstCentral + 20) + 40, firstCentral + 20);
    await refused(
      zip,
      /records of fastlane\/metadata\/en-US\/name\.txt and fastlane\/metadata\/en-US\/subtitle\.txt overlap/,
    );
  });

  it('refuses a local record that names another file than the directory says', async () => {
    const built = buildZip([entry('fastlane/metadata/en-US/name.txt', 'Weather Pro', 0)]);
    const zip = Buffer.from(built.buffer);
    zip.write('X', 30 + 'fastlane/metadata/en-US/'.length); // the local name only
    await refused(zip, /local record of fastlane\/metadata\/en-US\/name\.txt names another file/);
  });

  it('refuses more than 5,000 files with 413', async () => {
    const many = Array.from({ length: 5_001 }, (_, i) => entry(`fastlane/screenshots/${i}.txt`, '', 0));
    await refused(buildZip(many).buffer, /more than 5000 files/, 413);
  });
});

describe('who may import', () => {
  it("refuses a viewer's import before reading the body", async () => {
    // The harness closes the listening server with the app.
    const viewer = await h.given.member(org, 'viewer');
    const project = await newProject();
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(url);
    // Announces 50 MB, sends 64 KiB and then nothing: only a refusal made before reading can answer.
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/v1/projects/${project}/import`,
          headers: {
            authorization: `Bearer ${viewer.apiKey}`,
            'content-type': 'application/zip',
            'content-length': 50 * 1024 * 1024,
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
          request.destroy();
        },
      );
      request.on('error', () => undefined);
      request.write(Buffer.alloc(64 * 1024));
      setTimeout(() => reject(new Error('no answer while the body was still being sent')), 2_000);
    });
    expect(status).toBe(403);
  });
});
