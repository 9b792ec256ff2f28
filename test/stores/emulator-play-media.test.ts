/**
 * The Google Play emulator's images (stores-media.md A2 and checklist C), as clients send them:
 * each upload protocol (media, multipart, resumable, the header protocol of Ruby's client), the
 * `/upload/` and `/resumable/upload/` paths, sha256 of the exact bytes, single images replaced,
 * dimension refusals at upload, too many screenshots refused at commit with nothing changed, and
 * images discarded with their edit.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleToken, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { distinctColour, image } from '../support/media.js';

let emu: RunningEmulators;
let token: string;

beforeAll(async () => {
  emu = await startEmulators();
});
afterAll(() => emu.close());
// Back to the seed (which forgets issued tokens), then a fresh access token.
beforeEach(async () => {
  emu.restore();
  token = await googleToken(emu);
  expect(token).toBeTruthy();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const api = `/androidpublisher/v3/applications/${PACKAGE}`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function call(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: Buffer | string } = {},
) {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { ...auth(), ...init.headers },
    ...(init.body !== undefined && { body: init.body }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

const newEdit = async () =>
  (await call('POST', `${api}/edits`, { headers: { 'content-type': 'application/json' }, body: '{}' })).body
    .id as string;
const images = (edit: string, type = 'phoneScreenshots', language = 'en-US') =>
  `${api}/edits/${edit}/listings/${language}/${type}`;
const phone = () => image({ width: 1080, height: 1920, colour: distinctColour() });

describe('Google Play images in the emulator', () => {
  it('takes every upload protocol and answers the sha256 of the exact bytes', async () => {
    const edit = await newEdit();
    const path = images(edit);
    const uploaded: string[] = [];

    const media = await phone();
    const viaMedia = await call('POST', `/upload${path}?uploadType=media`, {
      headers: { 'content-type': 'image/png' },
      body: media,
    });
    expect(viaMedia.status).toBe(200);
    expect(viaMedia.body.image).toMatchObject({
      sha256: sha256(media),
      sha1: createHash('sha1').update(media).digest('hex'),
    });
    uploaded.push(sha256(media));

    const multi = await phone();
    const boundary = 'b0undary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{}\r\n--${boundary}\r\nContent-Type: image/png\r\n\r\n`,
      ),
      multi,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const viaMultipart = await call('POST', `/upload${path}?uploadType=multipart`, {
      headers: { 'content-type': `multipart/related; boundary=${boundary}` },
      body,
    });
    expect(viaMultipart.body.image.sha256).toBe(sha256(multi));
    uploaded.push(sha256(multi));

    const resumable = await phone();
    const started = await call('POST', `/resumable/upload${path}?uploadType=resumable`, {
      headers: {
        'x-upload-content-type': 'image/png',
        'x-upload-content-length': String(resumable.length),
      },
    });
    expect(started.status).toBe(200);
    const session = started.headers.get('location')!;
    const finished = await call(
      'PUT',
      new URL(session).pathname + new URL(session).search + '&uploadType=resumable',
      {
        headers: { 'content-type': 'image/png' },
        body: resumable,
      },
    );
    expect(finished.body.image.sha256).toBe(sha256(resumable));
    uploaded.push(sha256(resumable));

    // Ruby's client (supply): no uploadType, X-Goog-Upload-* headers, start then "upload, finalize".
    const ruby = await phone();
    const start = await call('POST', `/upload${path}`, {
      headers: {
        'x-goog-upload-protocol': 'resumable',
        'x-goog-upload-command': 'start',
        'x-goog-upload-header-content-length': String(ruby.length),
        'x-goog-upload-header-content-type': 'image/png',
      },
    });
    expect(start.headers.get('x-goog-upload-status')).toBe('active');
    const target = new URL(start.headers.get('x-goog-upload-url')!);
    const final = await call('POST', target.pathname + target.search, {
      headers: {
        'x-goog-upload-command': 'upload, finalize',
        'x-goog-upload-offset': '0',
        'content-type': 'application/octet-stream',
      },
      body: ruby,
    });
    expect(final.headers.get('x-goog-upload-status')).toBe('final');
    expect(final.body.image.sha256).toBe(sha256(ruby));
    uploaded.push(sha256(ruby));

    const listed = await call('GET', path);
    expect(listed.body.images.map((i: { sha256: string }) => i.sha256)).toEqual(uploaded);
    const full = await fetch(`${listed.body.images[0].url}=s0`);
    expect(Buffer.from(await full.arrayBuffer()).equals(media)).toBe(true);
  });

  it('refuses octet-stream, what is not an image, more than 15 MiB, and wrong dimensions', async () => {
    const edit = await newEdit();
    const path = `/upload${images(edit)}?uploadType=media`;
    const bytes = await phone();
    expect(
      (await call('POST', path, { headers: { 'content-type': 'application/octet-stream' }, body: bytes }))
        .status,
    ).toBe(400);
    expect(
      (
        await call('POST', path, {
          headers: { 'content-type': 'image/png' },
          body: Buffer.from('not an image'),
        })
      ).status,
    ).toBe(400);
    const huge = Buffer.concat([bytes, Buffer.alloc(15 * 1024 * 1024)]);
    expect((await call('POST', path, { headers: { 'content-type': 'image/png' }, body: huge })).status).toBe(
      413,
    );
    const wide = await image({ width: 3000, height: 1000, colour: distinctColour() });
    const refused = await call('POST', path, { headers: { 'content-type': 'image/png' }, body: wide });
    expect(refused.status).toBe(403);
    expect(refused.body.error.errors[0].reason).toBe('invalidScreenshotDimensions');
    expect((await call('GET', images(edit))).body).toEqual({});
  });

  it('replaces single images, deletes one or all, and keeps nothing of a deleted edit', async () => {
    const edit = await newEdit();
    const feature = images(edit, 'featureGraphic');
    for (let i = 0; i < 2; i += 1) {
      const bytes = await image({ width: 1024, height: 500, colour: distinctColour() });
      await call('POST', `/upload${feature}?uploadType=media`, {
        headers: { 'content-type': 'image/png' },
        body: bytes,
      });
    }
    expect((await call('GET', feature)).body.images).toHaveLength(1);
    const shots = images(edit);
    const ids = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push(
        (
          await call('POST', `/upload${shots}?uploadType=media`, {
            headers: { 'content-type': 'image/png' },
            body: await phone(),
          })
        ).body.image.id,
      );
    }
    expect((await call('DELETE', `${shots}/${ids[1]}`)).status).toBe(204);
    expect((await call('DELETE', `${shots}/${ids[1]}`)).status).toBe(404);
    const all = await call('DELETE', shots);
    expect(all.body.deleted.map((i: { id: string }) => i.id)).toEqual([ids[0], ids[2]]);
    expect((await call('DELETE', shots)).body).toEqual({});
    expect((await call('GET', images(edit, 'phoneScreenshots', 'ja-JP'))).status).toBe(404);

    expect((await call('DELETE', `${api}/edits/${edit}`)).status).toBe(204);
    const next = await newEdit();
    expect((await call('GET', images(next, 'featureGraphic'))).body).toEqual({});
  });

  it('defers dimension checks to the commit, and refuses too few screenshots there, with the knobs on', async () => {
    emu.play.load({ deferImageChecks: true, minScreenshots: 2 });
    const edit = await newEdit();
    const wide = await image({ width: 3000, height: 1000, colour: distinctColour() });
    const upload = await call('POST', `/upload${images(edit)}?uploadType=media`, {
      headers: { 'content-type': 'image/png' },
      body: wide,
    });
    expect(upload.status).toBe(200);
    const refused = await call('POST', `${api}/edits/${edit}:commit`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.errors[0].reason).toBe('invalidScreenshotDimensions');

    const next = await newEdit();
    await call('POST', `/upload${images(next)}?uploadType=media`, {
      headers: { 'content-type': 'image/png' },
      body: await phone(),
    });
    const tooFew = await call('POST', `${api}/edits/${next}:commit`);
    expect(tooFew.status).toBe(403);
    expect(tooFew.body.error.errors[0].reason).toBe('tooFewScreenshots');
    // Every listing language is counted: de-DE has none.
    expect(tooFew.body.error.message).toContain('for language de-DE');
  });

  it('accepts a 9th screenshot in the edit but refuses the commit, changing nothing', async () => {
    const edit = await newEdit();
    for (let i = 0; i < 9; i += 1) {
      const res = await call('POST', `/upload${images(edit)}?uploadType=media`, {
        headers: { 'content-type': 'image/png' },
        body: await phone(),
      });
      expect(res.status).toBe(200);
    }
    const commit = await call('POST', `${api}/edits/${edit}:commit`);
    expect(commit.status).toBe(403);
    expect(commit.body.error.errors[0]).toMatchObject({
      reason: 'validateAppMessageTooManyScreenshots',
      domain: 'androidpublisher',
    });
    const next = await newEdit();
    expect((await call('GET', images(next))).body).toEqual({});

    for (let i = 0; i < 2; i += 1) {
      await call('POST', `/upload${images(next)}?uploadType=media`, {
        headers: { 'content-type': 'image/png' },
        body: await phone(),
      });
    }
    expect((await call('POST', `${api}/edits/${next}:commit`)).status).toBe(200);
    const after = await newEdit();
    expect((await call('GET', images(after))).body.images).toHaveLength(2);
  });
});
