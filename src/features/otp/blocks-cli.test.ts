import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { accountCommands } from '../accounts/cli.js';
import { otpCommands } from './cli.js';

/** `otp blocks list|remove` and `accounts set --daily-spend`, as docs/operators/cli.md shows them. */
describeEngines('otp blocks and daily-spend commands', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());
  const mensajero = (...args: string[]) => runCommands(h.ctx, [accountCommands, otpCommands], [...args, '--json']);

  it('lists the blocks in force as documented and removes one by id', async () => {
    expect(await mensajero('otp', 'blocks', 'list')).toEqual({ blocks: [] });
    const a = await h.createAccount(100, 'cli-pumped@example.com');
    for (let i = 0; i < 30; i++)
      await h.post(
        '/v2/otp',
        { phone_number: `331${String(i).padStart(7, '0')}`, country_code: '52', company: 'Acme' },
        a.apikey,
      );
    const listed = await mensajero('otp', 'blocks', 'list');
    expect(listed).toEqual({
      blocks: [
        {
          id: expect.any(Number),
          scope: 'account',
          email: 'cli-pumped@example.com',
          prefix: '52331',
          until: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          created: 30,
          verified: 0,
        },
      ],
    });
    const id = String(listed.blocks[0].id);
    expect(await mensajero('otp', 'blocks', 'remove', '--id', id)).toEqual({ removed: true });
    expect(await mensajero('otp', 'blocks', 'remove', '--id', id)).toEqual({
      error: `no block in force with id ${id}`,
    });
    expect(await mensajero('otp', 'blocks', 'remove', '--id', '1e3')).toEqual({ error: '--id is a block id' });
    expect(await mensajero('otp', 'blocks', 'list')).toEqual({ blocks: [] });
  }, 120_000);

  it('sets, shows and removes the daily spending limit on a top-level account, never on a sub-account', async () => {
    const parent = await h.createAccount(10, 'cli-spend@example.com');
    expect(await mensajero('accounts', 'set', '--email', parent.email, '--daily-spend', '25.5')).toMatchObject({
      daily_spend: 25.5,
    });
    expect(await mensajero('accounts', 'show', '--email', parent.email)).toMatchObject({ daily_spend: 25.5 });
    expect(await mensajero('accounts', 'set', '--email', parent.email, '--daily-spend', '0')).toEqual({
      error: '--daily-spend is a number of credits above 0 with at most 4 decimals, or none',
    });
    const sub = await h.post(
      '/manager/subaccount/add',
      { email: 'branch@example.com', password: 'secret123' },
      parent.apikey,
    );
    expect(sub.body.code).toBe('subaccount_01');
    const asSub = ['--email', 'branch@example.com', '--parent', parent.email];
    // A sub-account shows its family's limit and cannot set its own.
    expect(await mensajero('accounts', 'show', ...asSub)).toMatchObject({ daily_spend: 25.5 });
    expect(await mensajero('accounts', 'set', ...asSub, '--daily-spend', '5')).toEqual({
      error: '--daily-spend is set on the top-level account: it covers its sub-accounts',
    });
    expect(await mensajero('accounts', 'set', '--email', parent.email, '--daily-spend', 'none')).toMatchObject({
      daily_spend: null,
    });
  });
});
