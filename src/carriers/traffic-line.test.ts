import { describe, expect, it } from 'vitest';
import { BULK_EVERY, LineClosed, TrafficLine } from './traffic-line.js';
import type { TrafficClass } from '../messaging/ports.js';

/** Takes the line's one place until `open()` is called. */
async function hold(line: TrafficLine): Promise<{ open: () => void; holder: Promise<unknown> }> {
  let open!: () => void;
  let holder!: Promise<unknown>;
  await new Promise<void>((started) => {
    holder = line.run({}, () => {
      started();
      return new Promise<void>((r) => (open = r));
    });
  });
  return { open, holder };
}

/** Queues messages on a line of one place while a first one holds it, then lets them go one by one: their order. */
async function order(
  line: TrafficLine,
  messages: Array<{ name: string; class: TrafficClass; family: number; weight?: number; validUntil?: number }>,
): Promise<string[]> {
  const went: string[] = [];
  const { open, holder } = await hold(line);
  const runs = messages.map((m) =>
    line
      .run(
        { traffic: { class: m.class, family: m.family, weight: m.weight ?? 1 }, validUntil: m.validUntil },
        async () => {
          went.push(m.name);
        },
      )
      .then((turn) => turn === 'expired' && went.push(`${m.name}:expired`)),
  );
  open();
  await holder;
  await Promise.all(runs);
  return went;
}

const many = (n: number, prefix: string, cls: TrafficClass, family: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, class: cls, family }));

describe('a carrier line', () => {
  it('hands over otp, then transactional, then bulk, whatever the order they came in', async () => {
    const went = await order(new TrafficLine(1), [
      { name: 'b1', class: 'bulk', family: 1 },
      { name: 't1', class: 'transactional', family: 1 },
      { name: 'o1', class: 'otp', family: 2 },
      { name: 'b2', class: 'bulk', family: 1 },
      { name: 'o2', class: 'otp', family: 1 },
    ]);
    expect(went).toEqual(['o1', 'o2', 't1', 'b1', 'b2']);
  });

  it(`gives bulk one place in ${BULK_EVERY} while other classes wait`, async () => {
    const went = await order(new TrafficLine(1), [...many(30, 'b', 'bulk', 1), ...many(30, 't', 'transactional', 2)]);
    const firstThirty = went.slice(0, 30);
    expect(firstThirty.filter((n) => n.startsWith('b'))).toHaveLength(3);
    expect(went.indexOf('b0')).toBe(BULK_EVERY - 1);
    expect(went.slice(-27).every((n) => n.startsWith('b'))).toBe(true);
  });

  it('alternates families within a class, however many each queued first', async () => {
    const went = await order(new TrafficLine(1), [...many(20, 'a', 'bulk', 1), ...many(3, 'b', 'bulk', 2)]);
    expect(went.slice(0, 6)).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
    expect(went).toHaveLength(23);
  });

  it("gives a family its weight's share of turns", async () => {
    const went = await order(new TrafficLine(1), [
      ...many(20, 'a', 'bulk', 1),
      ...many(20, 'b', 'bulk', 2).map((m) => ({ ...m, weight: 3 })),
    ]);
    const first = went.slice(0, 16);
    expect(first.filter((n) => n.startsWith('b'))).toHaveLength(12);
  });

  it('answers expired, without running it, a message whose validity ended while it waited', async () => {
    const past = Date.now() + 5;
    const line = new TrafficLine(1);
    const { open, holder } = await hold(line);
    let ran = false;
    const late = line.run({ validUntil: past }, async () => void (ran = true));
    await new Promise((r) => setTimeout(r, 20));
    open();
    await holder;
    expect(await late).toBe('expired');
    expect(ran).toBe(false);
  });

  it('refuses what waits when it closes, and what comes after', async () => {
    const line = new TrafficLine(1);
    const { open, holder } = await hold(line);
    const waiting = line.run({}, async () => 'ran');
    line.close(new LineClosed('stopping'));
    await expect(waiting).rejects.toBeInstanceOf(LineClosed);
    await expect(line.run({}, async () => 'ran')).rejects.toBeInstanceOf(LineClosed);
    open();
    await holder;
  });

  it('counts what waits per class, with the oldest', async () => {
    const line = new TrafficLine(1);
    const { open, holder } = await hold(line);
    const runs = [
      line.run({ traffic: { class: 'otp', family: 1, weight: 1 } }, async () => undefined),
      line.run({ traffic: { class: 'bulk', family: 1, weight: 1 } }, async () => undefined),
      line.run({ traffic: { class: 'bulk', family: 2, weight: 1 } }, async () => undefined),
    ];
    const w = line.waiting();
    expect(w.otp.waiting).toBe(1);
    expect(w.transactional).toEqual({ waiting: 0, oldest_at: null });
    expect(w.bulk.waiting).toBe(2);
    expect(w.bulk.oldest_at).toBeLessThanOrEqual(Date.now());
    open();
    await Promise.all([holder, ...runs]);
    expect(line.waiting().bulk.waiting).toBe(0);
  });
});
