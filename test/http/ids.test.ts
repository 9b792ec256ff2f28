/** Ids (design.md §4): prefix, underscore, 26 base32 characters, never the same twice. */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';

describe('newId', () => {
  it('gives well-formed, distinct ids across many draws of random bytes', () => {
    // 256 ids use up one draw: 1,000 span four.
    const ids = Array.from({ length: 1000 }, () => newId('lst'));
    for (const id of ids) expect(id).toMatch(/^lst_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Distinct bodies, not just distinct ids: no two share their random part.
    expect(new Set(ids.map((id) => id.slice(4, 12))).size).toBe(ids.length);
  });
});
