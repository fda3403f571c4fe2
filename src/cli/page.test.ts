import { describe, expect, it } from 'vitest';
import { pageOf } from './helpers.js';

describe('pageOf (--page of accounts list, accounts ledger, audit list)', () => {
  it.each([
    ['1', 1],
    ['7', 7],
    ['10', 10],
  ])('%j is page %i', (raw, page) => expect(pageOf(raw, 10)).toBe(page));

  it.each(['0', '11', '-1', '1.5', '', 'dos', '1e1', '00000001'])('%j is refused, naming the bounds', (raw) =>
    expect(() => pageOf(raw, 10)).toThrow('--page is a whole number from 1 to 10'),
  );
});
