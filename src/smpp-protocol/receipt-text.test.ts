import { describe, expect, it } from 'vitest';
import { formatReceiptText, messageStateName, parseReceiptText } from './receipt-text.js';

describe('receipt text', () => {
  it.each([
    [
      'id:0123456789 sub:001 dlvrd:001 submit date:2311230101 done date:2311230102 stat:DELIVRD err:000 text:Hola',
      { id: '0123456789', stat: 'DELIVRD', err: '000' },
    ],
    ['id:abc123 stat:undeliv err:1', { id: 'abc123', stat: 'UNDELIV', err: '1' }],
    ['stat:EXPIRED id:99', { id: '99', stat: 'EXPIRED', err: null }],
    ['nothing here', { id: null, stat: null, err: null }],
  ])('%j', (text, fields) => {
    expect(parseReceiptText(text)).toEqual(fields);
  });
});

describe('message_state', () => {
  it.each([
    [2, 'DELIVRD'],
    [5, 'UNDELIV'],
    [9, null],
    [undefined, null],
  ])('message_state %s → %s', (state, name) => {
    expect(messageStateName(state)).toBe(name);
  });
});

describe('receipt text written', () => {
  it('pads counts and err, writes Mexico City dates and the first 20 characters in ASCII', () => {
    const text = formatReceiptText({
      id: 'abc',
      sub: 1,
      dlvrd: 0,
      submitted: Date.UTC(2026, 0, 2, 18, 30),
      done: Date.UTC(2026, 0, 2, 18, 31),
      stat: 'UNDELIV',
      err: 6,
      text: 'Olá, ¿cómo estás? Hasta luego',
    });
    expect(text).toBe(
      'id:abc sub:001 dlvrd:000 submit date:2601021230 done date:2601021231 stat:UNDELIV err:006 text:Ol?, ?c?mo est?s? Ha',
    );
    expect(parseReceiptText(text)).toEqual({ id: 'abc', stat: 'UNDELIV', err: '006' });
  });
});
