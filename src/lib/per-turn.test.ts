import { expect, it } from 'vitest';
import { perTurn } from './per-turn.js';

it('answers the lookups of one turn with one load of their distinct keys, and the next turn with another', async () => {
  const loads: string[][] = [];
  const lookup = perTurn(async (keys: string[]) => {
    loads.push(keys);
    return new Map(keys.filter((k) => k !== 'unknown').map((k) => [k, k.toUpperCase()]));
  });
  expect(await Promise.all(['a', 'b', 'a', 'unknown'].map(lookup))).toEqual(['A', 'B', 'A', undefined]);
  expect(await lookup('c')).toBe('C');
  expect(loads).toEqual([['a', 'b', 'unknown'], ['c']]);
});

it('rejects every caller of a load that fails, and loads again on the next turn', async () => {
  let fail = true;
  const lookup = perTurn(async (keys: number[]) => {
    if (fail) throw new Error('database gone');
    return new Map(keys.map((k) => [k, k * 2]));
  });
  const settled = await Promise.allSettled([lookup(1), lookup(2)]);
  expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  fail = false;
  expect(await lookup(2)).toBe(4);
});
