import { describe, expect, it } from 'vitest';
import { CallerBusy, FairQueue } from './fair-queue.js';

/** A task that runs until `release()` is called, recording its name when it starts. */
function gate(order: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { task: () => (order.push(name), done), release };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('FairQueue: the password hashing queue shared by SMPP binds and panel sign-in', () => {
  it('takes waiting callers in turn, not in arrival order', async () => {
    const queue = new FairQueue(1, 3);
    const order: string[] = [];
    const first = gate(order, 'first');
    const running = queue.run('x', first.task);
    const done = [
      queue.run('a', async () => void order.push('a1')),
      queue.run('a', async () => void order.push('a2')),
      queue.run('a', async () => void order.push('a3')),
      queue.run('b', async () => void order.push('b1')),
      queue.run('c', async () => void order.push('c1')),
    ];
    expect(queue.waiting).toBe(5);
    first.release();
    await Promise.all([running, ...done]);
    expect(order).toEqual(['first', 'a1', 'b1', 'c1', 'a2', 'a3']);
    expect(queue.running).toBe(0);
  });

  it('refuses a caller that already holds its share, and serves the others', async () => {
    const queue = new FairQueue(1, 2);
    const order: string[] = [];
    const held = gate(order, 'a1');
    const tasks = [queue.run('a', held.task), queue.run('a', async () => void order.push('a2'))];
    await expect(queue.run('a', async () => void order.push('a3'))).rejects.toBeInstanceOf(CallerBusy);
    tasks.push(queue.run('b', async () => void order.push('b1')));
    await turn();
    held.release();
    await Promise.all(tasks);
    expect(order).toEqual(['a1', 'b1', 'a2']);
    // Its share is free again once its tasks are done.
    await queue.run('a', async () => void order.push('a4'));
    expect(order).toHaveLength(4);
  });

  it('never refuses work without a caller (accounts and users created by the operator)', async () => {
    const queue = new FairQueue(1, 1);
    const order: string[] = [];
    await Promise.all(Array.from({ length: 5 }, (_, i) => queue.run(undefined, async () => void order.push(`t${i}`))));
    expect(order).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(queue.peak).toBe(1);
    expect(queue.started).toBe(5);
  });
});
