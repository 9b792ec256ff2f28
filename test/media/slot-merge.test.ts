/** The three-way rule of a media slot at sync, without HTTP or a database. */
import { describe, expect, it } from 'vitest';
import { mergeSlot } from '../../src/modules/media/slot-merge.js';

const slot = (working: string[], base: string[] | null, inConflict = false) => ({
  working,
  base,
  inConflict,
});

describe('mergeSlot', () => {
  it('makes a slot the store has and this project does not follow the store', () => {
    expect(mergeSlot(undefined, ['a', 'b'])).toEqual({ follow: true, base: ['a', 'b'], conflict: null });
  });

  it('lets a slot not edited here follow the store, and leaves it alone when nothing changed', () => {
    expect(mergeSlot(slot(['a'], ['a']), ['b'])).toEqual({ follow: true, base: ['b'], conflict: null });
    expect(mergeSlot(slot(['a'], ['a']), ['a'])).toBeNull();
  });

  it('records the base of a slot first synced with the files it already holds', () => {
    expect(mergeSlot(slot(['a'], null), ['a'])).toEqual({ follow: false, base: ['a'], conflict: null });
  });

  it('keeps an edit the store has not caught up with pending', () => {
    expect(mergeSlot(slot(['a', 'b'], ['a']), ['a'])).toBeNull();
  });

  it('settles an edit the store now has', () => {
    expect(mergeSlot(slot(['b'], ['a']), ['b'])).toEqual({ follow: false, base: ['b'], conflict: null });
  });

  it('calls changes on both sides to different files a conflict, keeping the files here', () => {
    expect(mergeSlot(slot(['b'], ['a']), ['c'])).toEqual({ follow: false, base: ['a'], conflict: ['c'] });
  });

  it('clears a conflict the store undid', () => {
    expect(mergeSlot(slot(['b'], ['a'], true), ['a'])).toEqual({
      follow: false,
      base: ['a'],
      conflict: null,
    });
  });

  it('takes order as part of a slot', () => {
    expect(mergeSlot(slot(['a', 'b'], ['a', 'b']), ['b', 'a'])).toEqual({
      follow: true,
      base: ['b', 'a'],
      conflict: null,
    });
  });
});
