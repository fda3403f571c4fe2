import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Fence } from './fence.js';

describe('fence', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('lets its holder hand over for two thirds of a lease after the write, and no longer', () => {
    const fence = new Fence(900, Date.now());
    vi.advanceTimersByTime(599);
    expect(fence.valid).toBe(true);
    vi.advanceTimersByTime(1);
    expect(fence.valid).toBe(false);
    expect(fence.remainingMs).toBe(0);
  });

  it('counts a renewal from when it was sent, so a late answer extends nothing that ran out', () => {
    const fence = new Fence(900, Date.now());
    const sentAt = Date.now() + 100;
    vi.advanceTimersByTime(2000); // the answer of the renewal sent at +100 ms arrives after a cut
    fence.renewed(sentAt);
    expect(fence.valid).toBe(false);
    fence.renewed(Date.now());
    expect(fence.valid).toBe(true);
    expect(fence.remainingMs).toBe(600);
  });

  it('never moves back', () => {
    const fence = new Fence(900, Date.now());
    fence.renewed(Date.now() - 500);
    expect(fence.remainingMs).toBe(600);
  });
});
