import { describe, expect, it } from 'vitest';
import { table } from './helpers.js';

describe('CLI tables', () => {
  it('align columns under their header and say (none) for no row', () => {
    expect(
      table(
        [
          { id: 1, email: 'a@example.com' },
          { id: 22, email: null },
        ],
        ['id', 'email'],
      ),
    ).toBe('id  email\n1   a@example.com\n22  -');
    expect(table([], ['id'])).toBe('id\n(none)');
  });

  it('print stored text with its control characters as spaces: no escape sequence reaches the terminal', () => {
    const printed = table([{ text: 'hola\u001b[2J\u001b]0;owned\u0007\r\nadiós' }], ['text']);
    expect(printed).not.toMatch(/\p{Cc}(?<!\n)/u);
    expect(printed.split('\n')).toEqual(['text', 'hola [2J ]0;owned   adiós']);
  });
});
