import { describe, expect, it } from 'vitest';
import { CostTable, formatCost } from './costs.js';
import type { RouteEntry } from './routing.js';
import { RoutePlanner, type CarrierHealth } from './strategies.js';

const costs = new CostTable([
  { carrier: 'A', prefix: '52', cost: 120 },
  { carrier: 'B', prefix: '52', cost: 100 },
  { carrier: 'B', prefix: '5255', cost: 150 },
  { carrier: 'C', prefix: '5255', cost: 100 },
]);

function health(down: string[] = [], demoted: string[] = []): CarrierHealth {
  return {
    up: (n) => !down.includes(n),
    demoted: (n) => demoted.includes(n),
    costFor: (n, number) => costs.costFor(n, number),
  };
}

const route = (strategy: RouteEntry['strategy'], carriers: string[], weights?: number[]): RouteEntry => ({
  channel: 'sms',
  prefix: '52',
  accountId: 0,
  carriers,
  strategy,
  weights: weights ?? null,
});

describe('costs', () => {
  it('takes the longest cost prefix of each carrier, null without one, and prints 4 decimals', () => {
    expect(costs.costFor('B', '525512345678')).toBe(150);
    expect(costs.costFor('B', '523312345678')).toBe(100);
    expect(costs.costFor('C', '523312345678')).toBeNull();
    expect(costs.costFor('D', '523312345678')).toBeNull();
    expect([formatCost(100), formatCost(12345), formatCost(0)]).toEqual(['0.0100', '1.2345', '0.0000']);
  });
});

describe('route strategies', () => {
  const planner = new RoutePlanner();
  const names = (r: RouteEntry, number: string, h = health()) => planner.plan(r, number, h).map((c) => c.name);

  it('priority keeps the route order', () => {
    expect(planner.plan(route('priority', ['A', 'B']), '523312345678', health())).toEqual([
      { name: 'A', reason: 'priority' },
      { name: 'B', reason: 'priority' },
    ]);
  });

  it('least-cost puts the cheapest for the number first, no cost last, ties in route order, down after up', () => {
    const r = route('least-cost', ['A', 'C', 'B']);
    expect(planner.plan(r, '523312345678', health())).toEqual([
      { name: 'B', reason: 'least-cost 0.0100' },
      { name: 'A', reason: 'least-cost 0.0120' },
      { name: 'C', reason: 'least-cost (no cost)' },
    ]);
    expect(names(r, '525512345678')).toEqual(['C', 'A', 'B']);
    expect(names(r, '523312345678', health(['B']))).toEqual(['A', 'C', 'B']);
    expect(names(route('least-cost', ['C', 'D']), '523312345678')).toEqual(['C', 'D']);
  });

  it('weighted shares exactly by the weights among the healthy ones, deterministically', () => {
    const r = route('weighted', ['A', 'B'], [70, 30]);
    const firsts = Array.from({ length: 100 }, () => names(r, '523312345678')[0]);
    expect(firsts.filter((n) => n === 'A')).toHaveLength(70);
    expect(firsts.slice(0, 10).filter((n) => n === 'B')).toHaveLength(3);
    const skipDown = Array.from({ length: 10 }, () => names(r, '523312345678', health(['A']))[0]);
    expect(new Set(skipDown)).toEqual(new Set(['B']));
  });

  it('skips a demoted carrier while another is healthy, except one message in ten (the probe)', () => {
    const r = route('least-cost', ['A', 'B']);
    const plans = Array.from({ length: 30 }, () => planner.plan(r, '523312345678', health([], ['B'])));
    const probes = plans.filter((p) => p[0].name === 'B');
    expect(probes).toHaveLength(3);
    expect(probes.every((p) => p[0].reason === 'probe')).toBe(true);
    expect(plans.filter((p) => p[0].name === 'A').every((p) => p[1].name === 'B')).toBe(true);
    expect(planner.plan(r, '523312345678', health([], ['A']))[0]).toEqual({
      name: 'B',
      reason: 'least-cost 0.0100',
    });
    expect(planner.plan(route('priority', ['A', 'B']), '523312345678', health([], ['A']))[0]).toEqual({
      name: 'B',
      reason: 'priority, skipping demoted A',
    });
    // Every other carrier down or demoted: the demoted one takes everything, in strategy order.
    expect(names(r, '523312345678', health(['A'], ['B']))).toEqual(['B', 'A']);
    expect(names(r, '523312345678', health([], ['A', 'B']))).toEqual(['B', 'A']);
  });
});
