import { describe, expect, it } from 'vitest';
import { Status, statusCode, statusName } from './status.js';

describe('command_status', () => {
  it('names values for errors', () => {
    expect(statusName(0x58)).toBe('ESME_RTHROTTLED (0x58)');
    expect(statusName(0x401)).toBe('unknown (0x401)');
  });

  it('writes values as the trace shows them', () => {
    expect(statusCode(Status.THROTTLED)).toBe('0x58');
    expect(statusCode(Status.INVMSGLEN)).toBe('0x01');
  });
});
