import { describe, expect, it } from 'vitest';
import { findUrls } from './urls.js';

describe('findUrls', () => {
  it.each([
    ['Promo https://tienda.mx/oferta?x=1 hoy', ['https://tienda.mx/oferta?x=1']],
    ['Ver http://a.mx.', ['http://a.mx']],
    ['(www.tienda.mx/a)', ['https://www.tienda.mx/a']],
    ['Dos: https://a.mx y https://b.mx', ['https://a.mx', 'https://b.mx']],
    ['HTTPS://A.MX/X', ['HTTPS://A.MX/X']],
    ['sin enlaces', []],
    ['solo https:// nada', []],
    ['correo a@b.mx no es url', []],
  ])('%s', (text, hrefs) => expect(findUrls(text).map((u) => u.href)).toEqual(hrefs));

  it('gives the offsets of the URL as written', () => {
    const text = 'Ver www.a.mx/b, ya';
    const [u] = findUrls(text);
    expect(text.slice(u.start, u.end)).toBe('www.a.mx/b');
  });
});
