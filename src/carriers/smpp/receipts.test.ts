import { describe, expect, it } from 'vitest';
import { idForms, receiptStatus } from './receipts.js';
import { classifyStatus } from './status.js';

describe('receipt status', () => {
  it.each([
    ['DELIVRD', '000', 0],
    ['UNDELIV', '000', 1],
    ['UNDELIV', '001', 6],
    ['UNDELIV', '027', 2],
    ['UNDELIV', '013', 10],
    ['UNDELIV', '999', 1],
    ['UNDELIV', 'xyz', 1],
    ['EXPIRED', null, 3],
    ['REJECTD', null, 4],
    ['UNKNOWN', null, 5],
    ['DELETED', null, 8],
    ['ACCEPTD', null, null],
    ['ENROUTE', null, null],
    ['BOGUS', null, 5],
    [null, null, null],
  ])('stat %s err %s → %s', (stat, err, code) => {
    expect(receiptStatus(stat, err)).toBe(code);
  });
});

describe('carrier id forms', () => {
  it.each([
    ['1A2B', ['1a2b', '6699']],
    ['0000012345', ['12345', '3039', '74565']],
    ['ff', ['ff', '255']],
    ['msg-7', ['msg-7']],
  ])('%s → %j', (id, forms) => {
    expect(idForms(id)).toEqual(forms);
  });

  it('matches a hex submit id to its decimal receipt id and the reverse', () => {
    expect(idForms('1a2b')).toContain(idForms('6699')[0]);
    expect(idForms('6699')).toContain(idForms('1A2B')[0]);
  });
});

describe('command_status', () => {
  it.each([
    [0x00, 'ok'],
    [0x58, 'throttled'],
    [0x14, 'throttled'],
    [0x08, 'transient'],
    [0x45, 'transient'],
    [0x0b, 'permanent'],
    [0x0a, 'permanent'],
    [0x66, 'permanent'],
    [0x401, 'permanent'],
  ] as const)('0x%s → %s', (status, kind) => {
    expect(classifyStatus(status)).toBe(kind);
  });
});
