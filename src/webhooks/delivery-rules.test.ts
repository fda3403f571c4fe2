import { describe, expect, it } from 'vitest';
import { receiver } from '../../test/helpers/check-receiver.js';
import { isForbiddenAddress } from '../outbound/addresses.js';
import { MAX_RETRIES, retryDelayMs, scheduleWithoutJitter } from '../outbound/schedule.js';
import { HostSlots } from './host-slots.js';
import { failingStepMs } from './deliver.js';
import { safeAgent, send } from '../outbound/http.js';

describe('webhook address rules', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['100.100.100.200', true],
    ['224.0.0.1', true],
    ['0.0.0.0', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fc00::1', true],
    ['fd00:ec2::254', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['::127.0.0.1', true],
    ['64:ff9b::a00:1', true],
    ['2002:a00:1::', true],
    ['not an address', true],
    ['8.8.8.8', false],
    ['93.184.215.14', false],
    ['::ffff:8.8.8.8', false],
    ['2606:4700:4700::1111', false],
  ])('%s forbidden: %s', (address, forbidden) => expect(isForbiddenAddress(address)).toBe(forbidden));

  it('spreads 25 retries over about a day, with jitter', () => {
    const schedule = scheduleWithoutJitter(10_000);
    expect(schedule).toHaveLength(MAX_RETRIES);
    const hours = schedule.at(-1)! / 3_600_000;
    expect(hours).toBeGreaterThan(22);
    expect(hours).toBeLessThan(26);
    expect(retryDelayMs(1, 10_000, () => 0)).toBe(8_000);
    expect(retryDelayMs(1, 10_000, () => 0.999)).toBeLessThan(12_000);
    expect(retryDelayMs(25, 10_000, () => 0.5)).toBe(5_120_000);
  });
});

describe('the delivery connector', () => {
  it.each(['http://127.0.0.1:PORT/x', 'http://localhost:PORT/x', 'http://[::ffff:127.0.0.1]:PORT/x'])(
    'refuses %s at connection time, sending nothing',
    async (template) => {
      const r = await receiver();
      const agent = safeAgent(false, 2_000);
      try {
        const answer = await send(agent, template.replace('PORT', String(r.port)), { method: 'GET', timeoutMs: 2_000 });
        expect(answer).toMatchObject({
          status: null,
          forbidden: true,
          error: expect.stringMatching(/private, local or reserved/),
        });
        expect(r.received).toHaveLength(0);
      } finally {
        await agent.close();
        await r.close();
      }
    },
  );

  it('connects when private destinations are allowed', async () => {
    const r = await receiver(() => 204);
    const agent = safeAgent(true, 2_000);
    try {
      expect(await send(agent, `http://localhost:${r.port}/x`, { method: 'HEAD', timeoutMs: 2_000 })).toMatchObject({
        status: 204,
        error: null,
      });
    } finally {
      await agent.close();
      await r.close();
    }
  });
});

describe('per-destination delivery slots', () => {
  it('caps deliveries per host and hands freed slots to waiters', async () => {
    const slots = new HostSlots(2);
    expect(await slots.acquire('busy.example', 50)).toBe(true);
    expect(await slots.acquire('busy.example', 50)).toBe(true);
    expect(await slots.acquire('other.example', 50)).toBe(true);
    const waiting = [slots.acquire('busy.example', 1_000), slots.acquire('busy.example', 1_000)];
    slots.release('busy.example');
    slots.release('busy.example');
    expect(await Promise.all(waiting)).toEqual([true, true]);
    expect(await slots.acquire('busy.example', 20)).toBe(false); // nothing freed in time
    expect(slots.deferMs('busy.example')).toBeLessThanOrEqual(1_500);
  });

  it('stops making jobs wait for a failing host and steps them back further and further until it answers 200', async () => {
    const slots = new HostSlots(2);
    await slots.acquire('dead.example', 50);
    await slots.acquire('dead.example', 50);
    slots.outcome('dead.example', false);
    slots.outcome('dead.example', false);
    const started = Date.now();
    expect(await slots.acquire('dead.example', 5_000)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (let i = 0; i < 20; i++) expect(await slots.acquire('dead.example', 5_000)).toBe(false);
    expect(slots.deferMs('dead.example')).toBeGreaterThan(1_500);
    expect(slots.deferMs('dead.example')).toBeLessThanOrEqual(96_000);
    slots.outcome('dead.example', true);
    expect(slots.deferMs('dead.example')).toBeLessThanOrEqual(1_500);
    const again = slots.acquire('dead.example', 1_000);
    slots.release('dead.example');
    expect(await again).toBe(true);
  });

  it("scales a failing host's steps back with the step it is given (a tenth of the retry base)", async () => {
    const slots = new HostSlots(1, 10);
    await slots.acquire('dead.example', 50);
    slots.outcome('dead.example', false);
    expect(slots.deferMs('dead.example')).toBeGreaterThanOrEqual(5);
    expect(slots.deferMs('dead.example')).toBeLessThanOrEqual(15);
    for (let i = 0; i < 20; i++) await slots.acquire('dead.example', 50);
    expect(slots.deferMs('dead.example')).toBeGreaterThanOrEqual(5 * 64);
    expect(slots.deferMs('dead.example')).toBeLessThanOrEqual(15 * 64);
  });

  it('steps back from a failing receiver by 1 s, or a tenth of the retry base when that is shorter', () => {
    expect(failingStepMs({ WEBHOOK_RETRY_BASE_MS: 10_000 })).toBe(1000);
    expect(failingStepMs({ WEBHOOK_RETRY_BASE_MS: 600_000 })).toBe(1000);
    expect(failingStepMs({ WEBHOOK_RETRY_BASE_MS: 50 })).toBe(5);
  });
});
