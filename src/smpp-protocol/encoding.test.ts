import { describe, expect, it } from 'vitest';
import {
  chooseCoding,
  decodeMessage,
  encodeMessage,
  gsmSeptets,
  gsmText,
  packSeptets,
  unpackSeptets,
} from './encoding.js';

describe('GSM 03.38', () => {
  it.each([
    ['@', [0x00]],
    ['$', [0x02]],
    ['£¥', [0x01, 0x03]],
    ['Hola', [0x48, 0x6f, 0x6c, 0x61]],
    ['ñ¿¡', [0x7d, 0x60, 0x40]],
    ['_', [0x11]],
    ['€', [0x1b, 0x65]],
    ['{}[]~|^\\', [0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x3c, 0x1b, 0x3e, 0x1b, 0x3d, 0x1b, 0x40, 0x1b, 0x14, 0x1b, 0x2f]],
    ['\f', [0x1b, 0x0a]],
    ['a😀', [0x61, 0x3f]],
  ])('%j ↔ septets %j', (text, septets) => {
    expect(gsmSeptets(text)).toEqual(septets);
    if (!text.includes('😀')) expect(gsmText(septets)).toBe(text);
  });

  it('reads an escape before an unknown code as a space', () => {
    expect(gsmText([0x41, 0x1b, 0x41])).toBe('A ');
  });

  it.each([
    // The 03.38 example: "hellohello" packs to E8329BFD4697D9EC37.
    ['hellohello', 'e8329bfd4697d9ec37'],
    ['1234567', '31d98c56b3dd00'],
    ['12345678', '31d98c56b3dd70'],
  ])('packs %j as %s and back', (text, hex) => {
    const packed = packSeptets(gsmSeptets(text));
    expect(packed.toString('hex')).toBe(hex);
    expect(gsmText(unpackSeptets(packed, text.length))).toBe(text);
    expect(decodeMessage(packed, 0, 0, true).text).toBe(text);
  });
});

describe('encodeMessage', () => {
  it.each([
    [
      'GSM unpacked, @ and $ intact',
      'Pago $5 @casa',
      { coding: 'gsm' as const },
      0x00,
      Buffer.from(gsmSeptets('Pago $5 @casa')),
    ],
    [
      'GSM packed',
      'hellohello',
      { coding: 'gsm' as const, packed: true },
      0x00,
      Buffer.from('e8329bfd4697d9ec37', 'hex'),
    ],
    ['Latin-1', 'Año ç', { coding: 'latin1' as const }, 0x03, Buffer.from('Año ç', 'latin1')],
    ['UCS-2', 'Hola 😀', { coding: 'ucs2' as const }, 0x08, Buffer.from('0048006f006c00610020d83dde00', 'hex')],
    [
      'flash GSM is message class 0',
      'Alerta',
      { coding: 'gsm' as const, flash: true },
      0x10,
      Buffer.from(gsmSeptets('Alerta')),
    ],
    ['flash UCS-2', 'Ω😀', { coding: 'ucs2' as const, flash: true }, 0x18, Buffer.from('03a9d83dde00', 'hex')],
  ])('%s', (_name, text, opts, dataCoding, bytes) => {
    const [segment, ...rest] = encodeMessage(text, opts);
    expect(rest).toHaveLength(0);
    expect(segment.dataCoding).toBe(dataCoding);
    expect(segment.esmClass).toBe(0);
    expect(segment.shortMessage.toString('hex')).toBe(bytes.toString('hex'));
    expect(
      decodeMessage(segment.shortMessage, segment.dataCoding, 0, opts.coding === 'gsm' && 'packed' in opts).text,
    ).toBe(text);
  });

  it.each([
    ['gsm', 'a'.repeat(160), 1],
    ['gsm', 'a'.repeat(161), 2],
    ['gsm', '€'.repeat(80), 1],
    ['gsm', '€'.repeat(81), 2],
    ['ucs2', 'ñ'.repeat(70), 1],
    ['ucs2', 'ñ'.repeat(71), 2],
    ['ucs2', '😀'.repeat(36), 2],
    ['latin1', 'x'.repeat(141), 2],
  ] as const)(
    '%s: %j characters long splits into %i segment(s), reassembled by decodeMessage',
    (coding, text, count) => {
      for (const packed of coding === 'gsm' ? [false, true] : [false]) {
        const segments = encodeMessage(text, { coding, packed }, 7);
        expect(segments).toHaveLength(count);
        const decoded = segments.map((s) => decodeMessage(s.shortMessage, s.dataCoding, s.esmClass, packed));
        expect(decoded.map((d) => d.text).join('')).toBe(text);
        if (count > 1) {
          expect(
            segments.every(
              (s) => s.esmClass === 0x40 && s.shortMessage.length <= (coding === 'gsm' && !packed ? 160 : 140),
            ),
          ).toBe(true);
          expect(decoded.map((d) => d.concat)).toEqual(
            segments.map((_, i) => ({ reference: 7, total: count, sequence: i + 1 })),
          );
        }
      }
    },
  );

  it('never splits an escape pair or a surrogate pair across segments', () => {
    const gsm = encodeMessage('a'.repeat(152) + '€' + 'b'.repeat(10), { coding: 'gsm' });
    expect(gsm[0].shortMessage.at(-1)).toBe(0x61);
    const ucs = encodeMessage('a'.repeat(66) + '😀' + 'b'.repeat(5), { coding: 'ucs2' });
    expect(decodeMessage(ucs[1].shortMessage, 8, 0x40).text).toBe('😀bbbbb');
  });
});

describe('decodeMessage', () => {
  it.each([
    ['GSM 0', Buffer.from([0x00, 0x02, 0x1b, 0x65]), 0x00, '@$€'],
    ['GSM class 1 (0x11)', Buffer.from([0x41]), 0x11, 'A'],
    ['IA5 read as GSM', Buffer.from([0x41, 0x00]), 0x01, 'A@'],
    ['Latin-1', Buffer.from('ÁÉÍ', 'latin1'), 0x03, 'ÁÉÍ'],
    ['UCS-2', Buffer.from('00f1', 'hex'), 0x08, 'ñ'],
    ['UCS-2 class 0', Buffer.from('00f1', 'hex'), 0x18, 'ñ'],
    ['UCS-2 with an odd trailing byte', Buffer.from('00f100', 'hex'), 0x08, 'ñ'],
  ])('%s', (_name, bytes, dataCoding, text) => {
    expect(decodeMessage(bytes, dataCoding, 0).text).toBe(text);
  });

  it('reads a 16-bit concatenation reference', () => {
    const d = decodeMessage(Buffer.from('060804beef0201' + '0041', 'hex'), 8, 0x40);
    expect(d).toEqual({ text: 'A', concat: { reference: 0xbeef, total: 2, sequence: 1 } });
  });

  it('survives a UDH longer than the message', () => {
    expect(decodeMessage(Buffer.from([0x09, 0x00]), 0, 0x40)).toEqual({ text: '', concat: null });
  });
});

describe('chooseCoding', () => {
  it.each([
    ['Hola', 'gsm', 'gsm'],
    ['Hola 😀', 'gsm', 'ucs2'],
    ['Año ç', 'latin1', 'latin1'],
    ['Año 😀', 'latin1', 'ucs2'],
    ['Hola', 'ucs2', 'ucs2'],
  ] as const)('%j with preference %s → %s', (text, preferred, coding) => {
    expect(chooseCoding(text, preferred)).toBe(coding);
  });
});
