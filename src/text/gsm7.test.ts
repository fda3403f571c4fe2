import { describe, expect, it } from 'vitest';
import { gsm7Length, isGsm7, toGsm7 } from './gsm7.js';

describe('GSM-7 transliteration', () => {
  it.each([
    ['á é í ó ú', 'a é i o u'],
    ['Á É Í Ó Ú', 'A É I O U'],
    ['ñ Ñ ü Ü ¿ ¡', 'ñ Ñ ü Ü ¿ ¡'],
    ['“Hola” ‘sí’', '"Hola" \'si\''],
    ['a – b — c', 'a - b - c'],
    ['Espera…', 'Espera...'],
    ['€ [ ] { } ~ ^ | \\', '€ [ ] { } ~ ^ | \\'],
    ['ç â ê î ô û', 'c a e i o u'],
    ['hola 😀', 'hola ?'],
    ['漢', '?'],
    ['a\tb', 'a b'],
  ])('%s → %s', (input, output) => expect(toGsm7(input)).toBe(output));

  it.each([
    ['hola', 4],
    ['€', 2],
    ['[x]', 5],
    ['ñandú', 5],
    ['', 0],
  ])('counts %s as %i septets', (text, n) => expect(gsm7Length(text)).toBe(n));

  it('tells GSM-7 text from other text', () => {
    expect(isGsm7('Código ñ €')).toBe(false);
    expect(isGsm7('Codigo ñ €')).toBe(true);
    expect(isGsm7(toGsm7('Código ñ € 😀'))).toBe(true);
  });
});
