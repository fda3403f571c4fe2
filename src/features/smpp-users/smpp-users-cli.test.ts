import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { smppUserCommands } from './cli.js';

/** A sub-account named with --parent is printed by the email its holder wrote, never the stored `<parent id> <email>` form. */
describeEngines('smpp-users with --parent', (engine) => {
  let h: Harness;
  let parent: TestAccount;
  const EMAIL = 'kid2@example.com';
  const mensajero = (args: string[]) =>
    runCommands(h.ctx, [(p, run) => smppUserCommands(p, run, async () => 'pw123')], ['smpp-users', ...args, '--json']);

  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    parent = await h.createAccount(100, 'parent-smpp@example.com');
    const r = await h.post('/manager/subaccount/add', { email: EMAIL, password: 'secret123' }, parent.apikey);
    expect(r.body.code).toBe('subaccount_01');
  });
  afterAll(() => h.close());

  it('add, set and list print the plain email of the sub-account', async () => {
    const added = await mensajero([
      'add',
      '--email',
      EMAIL,
      '--parent',
      parent.email,
      '--system-id',
      'kid2',
      '--password',
      '-',
    ]);
    expect(added).toMatchObject({ system_id: 'kid2', email: EMAIL });
    expect(await mensajero(['set', '--system-id', 'kid2', '--window', '5'])).toMatchObject({ email: EMAIL, window: 5 });
    const listed = await mensajero(['list', '--email', EMAIL, '--parent', parent.email]);
    expect(listed.smpp_users).toMatchObject([{ system_id: 'kid2', email: EMAIL }]);
    const all = await mensajero(['list']);
    expect(all.smpp_users.find((u: { system_id: string }) => u.system_id === 'kid2')).toMatchObject({ email: EMAIL });
    expect(JSON.stringify(all)).not.toMatch(new RegExp(`${parent.id} ${EMAIL}`));
  });
});
