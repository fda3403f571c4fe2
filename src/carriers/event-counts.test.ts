import { describe, expect, it } from 'vitest';
import { EventCountDeltas } from './event-counts.js';
import { emptyStats } from './status.js';

/** What a process adds to the shared counts each round: only the increments, once. */
describe('carrier event count deltas', () => {
  const at = Date.parse('2026-03-01T10:15:42.500Z');

  it('takes each increment once, in the minute of the round, and nothing for a quiet connector', () => {
    const deltas = new EventCountDeltas();
    const a = { name: 'a', stats: emptyStats() };
    const b = { name: 'b', stats: emptyStats() };
    a.stats.throttled = 3;
    a.stats.errors = 1;
    expect(deltas.take([b, a], at)).toEqual([
      { carrier: 'a', minute: Date.parse('2026-03-01T10:15:00Z'), throttled: 3, refused: 0, errors: 1 },
    ]);
    expect(deltas.take([a, b], at + 1000)).toEqual([]);
    a.stats.throttled = 5;
    b.stats.refused = 2;
    expect(deltas.take([a, b], at + 30_000)).toEqual([
      { carrier: 'a', minute: Date.parse('2026-03-01T10:16:00Z'), throttled: 2, refused: 0, errors: 0 },
      { carrier: 'b', minute: Date.parse('2026-03-01T10:16:00Z'), throttled: 0, refused: 2, errors: 0 },
    ]);
  });

  it('counts a rebuilt connector from zero, and sums two connectors of one name (one closing, one new)', () => {
    const deltas = new EventCountDeltas();
    const old = { name: 'a', stats: { ...emptyStats(), errors: 4 } };
    expect(deltas.take([old], at)[0].errors).toBe(4);
    old.stats.errors = 5;
    const rebuilt = { name: 'a', stats: { ...emptyStats(), errors: 2 } };
    expect(deltas.take([old, rebuilt], at)).toEqual([
      { carrier: 'a', minute: Date.parse('2026-03-01T10:15:00Z'), throttled: 0, refused: 0, errors: 3 },
    ]);
  });
});
