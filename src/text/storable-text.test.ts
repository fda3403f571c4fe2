import { describe, expect, it } from 'vitest';
import { storableText } from './storable.js';

describe('storableText', () => {
  it('keeps short text as it is', () => {
    expect(storableText('c1: ESME_RTHROTTLED (0x58)', 200)).toBe('c1: ESME_RTHROTTLED (0x58)');
  });

  it('turns control characters, NUL and lone surrogates into spaces', () => {
    expect(storableText('a\u0000b\nc\td\u001be\uD800f', 50)).toBe('a b c d e f');
  });

  it('cuts at the bound with an ellipsis, never through a surrogate pair', () => {
    expect(storableText('x'.repeat(300), 200)).toBe(`${'x'.repeat(199)}…`);
    expect(storableText(`${'x'.repeat(198)}😀😀`, 200)).toBe(`${'x'.repeat(198)}…`);
  });
});
