import { describe, expect, it } from 'vitest';
import { reconnectDelay } from './bind.js';

describe('reconnect backoff', () => {
  it.each([
    [1, 0, 250],
    [1, 0.5, 500],
    [2, 0.5, 1000],
    [4, 0.5, 4000],
    [7, 0.5, 30_000],
    [50, 0.999, 44_970],
    [50, 0, 15_000],
  ])('attempt %i with random %f waits %i ms', (attempt, random, ms) => {
    expect(reconnectDelay(attempt, () => random)).toBe(ms);
  });
});
