import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { carrierCommands } from './cli.js';

/** `carriers list|set|remove` print what docs/operators/cli.md says: quality settings and the real demotion state. */
describeEngines('carriers list, set and remove', (engine) => {
  let h: Harness;
  const cli = (...args: string[]) => runCommands(h.ctx, [carrierCommands], ['carriers', ...args, '--json']);
  const demote = (name: string) =>
    h.ctx.db.kysely
      .updateTable('carrier_quality')
      .set({ demoted_at: Date.now(), changed_at: Date.now() })
      .where('carrier', '=', name)
      .execute();
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const add = (name: string) =>
    cli('add', 'smpp', '--name', name, '--host', '127.0.0.1', '--port', '2775', '--system-id', 's', '--password', 'pw');

  it('lists each connector with its quality settings and whether it is demoted', async () => {
    expect((await add('q1')).name).toBe('q1');
    expect((await add('q2')).name).toBe('q2');
    await cli('set', '--name', 'q1', '--min-delivery-rate', '0.8', '--quality-window-minutes', '20');
    await demote('q1');
    const { carriers } = await cli('list');
    expect(carriers.find((c: { name: string }) => c.name === 'q1')).toMatchObject({
      name: 'q1',
      type: 'smpp',
      enabled: true,
      min_delivery_rate: 0.8,
      quality_window_minutes: 20,
      quality_min_messages: 50,
      demoted: true,
    });
    expect(carriers.find((c: { name: string }) => c.name === 'q2')).toMatchObject({
      min_delivery_rate: null,
      quality_window_minutes: 10,
      quality_min_messages: 50,
      demoted: false,
    });
    expect(JSON.stringify(carriers)).not.toMatch(/password/);
  });

  it('turning the minimum off ends a demotion, and the answer says so', async () => {
    await add('q3');
    await cli('set', '--name', 'q3', '--min-delivery-rate', '0.9');
    await demote('q3');
    expect(await cli('set', '--name', 'q3', '--quality-min-messages', '20')).toMatchObject({ demoted: true });
    const off = await cli('set', '--name', 'q3', '--min-delivery-rate', 'off');
    expect(off).toMatchObject({ name: 'q3', min_delivery_rate: null, demoted: false });
    expect((await cli('list')).carriers.find((c: { name: string }) => c.name === 'q3').demoted).toBe(false);
  });

  it('remove answers {"removed": true}', async () => {
    await add('gone');
    expect(await cli('remove', '--name', 'gone')).toEqual({ removed: true });
    expect(await cli('remove', '--name', 'gone')).toEqual({ error: 'no carrier named gone' });
  });
});
