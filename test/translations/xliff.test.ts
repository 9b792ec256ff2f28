/**
 * The XLIFF reader and writer on their own, with documents shaped like translation tools' output
 * (memoQ and Phrase write XLIFF 2.0 with prefixed elements and inline markers; Trados and Okapi
 * write 1.2 with <g>, <mrk> and alt-trans), and the keyword helpers of machine translation. Also
 * the DeepL emulator's refusals: a request its specification does not allow is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinKeywords, splitKeywords } from '../../src/modules/translations/machine-translation.js';
import {
  parseXliff,
  writeXliff,
  XliffError,
  type XliffDocument,
} from '../../src/modules/translations/xliff.js';
import { startEmulators, type RunningEmulators } from '../support/emulators.js';

const doc = (version: '2.0' | '1.2'): XliffDocument => ({
  version,
  sourceLanguage: 'en-US',
  targetLanguage: 'de-DE',
  files: [
    {
      id: 'appstore',
      original: 'App Store',
      units: [
        {
          id: 'description',
          source: 'Line one\n  indented & <escaped> "quoted"',
          target: 'Zeile eins',
          state: 'reviewed',
          maxLength: 4000,
          notes: [{ category: 'field', text: 'Description: the product page' }],
        },
        { id: 'name', source: 'Weather Pro', target: null, state: 'initial', maxLength: 30, notes: [] },
      ],
    },
  ],
});

describe('XLIFF', () => {
  it.each(['2.0', '1.2'] as const)('%s: what is written reads back the same, whitespace kept', (version) => {
    const written = writeXliff(doc(version));
    const read = parseXliff(written);
    expect(read.files[0]!.units[0]).toEqual(doc(version).files[0]!.units[0]);
    expect(read.files[0]!.units[1]).toEqual(doc(version).files[0]!.units[1]);
    expect(read).toMatchObject({ version, sourceLanguage: 'en-US', targetLanguage: 'de-DE' });
  });

  it('reads a memoQ-style 2.0 file: prefixed elements, groups, inline markers', () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<xlf:xliff xmlns:xlf="urn:oasis:names:tc:xliff:document:2.0" version="2.1" srcLang="en-US" trgLang="de-DE">
  <xlf:file id="playstore">
    <xlf:group id="g">
      <xlf:unit id="title">
        <xlf:segment state="final">
          <xlf:source>Weather <xlf:mrk id="m1" translate="no">Pro</xlf:mrk></xlf:source>
          <xlf:target>Wetter <xlf:mrk id="m1" translate="no">Pro</xlf:mrk></xlf:target>
        </xlf:segment>
      </xlf:unit>
    </xlf:group>
  </xlf:file>
</xlf:xliff>`;
    const read = parseXliff(xml);
    expect(read.version).toBe('2.0');
    expect(read.files[0]!.units).toEqual([
      { id: 'title', source: 'Weather Pro', target: 'Wetter Pro', state: 'final', notes: [] },
    ]);
  });

  it('reads a Trados-style 1.2 file: resname, <g>, <mrk>, alt-trans ignored, states mapped', () => {
    const xml = `<?xml version="1.0"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0">
  <file original="appstore" source-language="en-US" target-language="de-DE" datatype="plaintext">
    <header><tool tool-id="x" tool-name="Trados"/></header>
    <body>
      <trans-unit id="1" resname="subtitle" sdl:locked="false">
        <source>Forecasts</source>
        <seg-source><mrk mtype="seg" mid="1">Forecasts</mrk></seg-source>
        <target state="needs-review-translation"><mrk mtype="seg" mid="1"><g id="5">Vorhersagen</g></mrk></target>
        <alt-trans><target>Prognosen</target></alt-trans>
      </trans-unit>
    </body>
  </file>
</xliff>`;
    const unit = parseXliff(xml).files[0]!.units[0]!;
    expect(unit).toMatchObject({
      id: 'subtitle',
      source: 'Forecasts',
      target: 'Vorhersagen',
      state: 'translated',
    });
  });

  it('decodes character references and the five entities, keeps CDATA as written, refuses the rest', () => {
    const xml = writeXliff(doc('2.0')).replace(
      '<target>Zeile eins</target>',
      '<target>St&#252;ndlich &#x2014; &lt;b&gt; &amp; <![CDATA[R&D &amp; <i>]]></target>',
    );
    expect(parseXliff(xml).files[0]!.units[0]!.target).toBe('Stündlich — <b> & R&D &amp; <i>');
    expect(() => parseXliff(xml.replace('&#252;', '&uuml;'))).toThrow(/&uuml;/);
    expect(() => parseXliff(xml.replace('&#252;', '&#0;'))).toThrow(/not a character XML allows/);
    const truncated = xml.slice(
      0,
      xml.indexOf('Stündlich') > 0 ? xml.indexOf('Stündlich') : xml.indexOf('St&#252;'),
    );
    expect(() => parseXliff(truncated)).toThrow(/still open/);
  });

  it('refuses what cannot become a store text, naming the unit', () => {
    const placeholder = writeXliff(doc('2.0')).replace(
      '<target>Zeile eins</target>',
      '<target>Zeile <ph id="1"/> eins</target>',
    );
    expect(() => parseXliff(placeholder)).toThrow(XliffError);
    try {
      parseXliff(placeholder);
    } catch (error) {
      expect((error as XliffError).unit).toBe('appstore/description');
    }
    expect(() => parseXliff('<xliff version="3.0"/>')).toThrow(/version "3.0"/);
    expect(() => parseXliff('<?xml version="1.0"?><!DOCTYPE x SYSTEM "file:///etc/passwd"><xliff/>')).toThrow(
      /DOCTYPE/,
    );
    expect(() => parseXliff('<root/>')).toThrow(/no <xliff>/);
    expect(() =>
      parseXliff(writeXliff(doc('2.0')).replace('<segment state="reviewed">', '<segment state="approved">')),
    ).toThrow(/segment state "approved"/);
  });
});

describe('keywords for machine translation', () => {
  it('splits on commas, trims and drops repeats', () => {
    expect(splitKeywords(' rain, Radar,,rain ,storm  front ')).toEqual(['rain', 'Radar', 'storm front']);
  });

  it('joins without spaces, splits translations holding commas, and keeps within the limit', () => {
    expect(joinKeywords(['Regen', 'Radar, Karte', 'regen'], 100)).toEqual({
      text: 'Regen,Radar,Karte',
      note: null,
    });
    const { text, note } = joinKeywords(['abcdefghij', 'klmnopqrst', 'uvw', 'xyz'], 18);
    expect(text).toBe('abcdefghij,uvw,xyz');
    expect(note).toBe('Left out to stay within 18 characters: klmnopqrst.');
  });
});

describe('DeepL emulator', () => {
  let emu: RunningEmulators;
  beforeAll(async () => {
    emu = await startEmulators({ deepl: { keys: [{ key: 'k-123456', characterLimit: 50 }] } });
  });
  afterAll(async () => emu?.close());

  const translate = (body: unknown, key = 'k-123456') =>
    fetch(`${emu.url}/v2/translate`, {
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers a valid request, and refuses what its specification does not allow', async () => {
    const ok = await translate({ text: ['Weather'], target_lang: 'DE', source_lang: 'EN' });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { translations: { text: string }[] };
    expect(body.translations[0]!.text).not.toBe('Weather');

    const missing = await translate({ text: ['Weather'] });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/target_lang/);
    const typed = await translate({ text: 'Weather', target_lang: 'DE' });
    expect(typed.status).toBe(400);
    expect((await translate({ text: ['x'], target_lang: 'DE' }, 'other')).status).toBe(403);
    expect((await translate({ text: ['x'.repeat(60)], target_lang: 'DE' })).status).toBe(456);
  });
});
