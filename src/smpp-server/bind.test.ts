import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { ask, bindClient, closed, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { smppUserCommands } from '../features/smpp-users/cli.js';
import { archiveAccount } from '../accounts/store.js';

describeEngines('SMPP server: users and binds', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  const cli = (args: string[], password = 'pw12345') =>
    runCommands(h.ctx, [(p, r) => smppUserCommands(p, r, async () => password)], ['smpp-users', ...args, '--json']);

  it('adds a user from the CLI with the password from standard input, and never prints it', async () => {
    const account = await h.createAccount(10);
    const added = await cli(['add', '--email', account.email, '--system-id', 'resel1', '--password', '-']);
    expect(added).toEqual({
      system_id: 'resel1',
      email: account.email,
      max_binds: 4,
      throughput: 100,
      window: 10,
      allow_ip: [],
      traffic_class: 'auto',
    });
    const listed = await cli(['list', '--email', account.email]);
    expect(listed.smpp_users).toEqual([added]);
    expect(JSON.stringify(listed)).not.toContain('pw12345');
    expect((await bindClient(h.smppPort, 'resel1', 'pw12345')).status).toBe(0);
    const set = await cli(
      ['set', '--system-id', 'resel1', '--max-binds', '2', '--allow-ip', '10.0.0.0/8'].concat([
        '--traffic-class',
        'bulk',
      ]),
    );
    expect(set).toMatchObject({ max_binds: 2, allow_ip: ['10.0.0.0/8'], traffic_class: 'bulk' });
    expect((await cli(['set', '--system-id', 'resel1', '--traffic-class', 'urgent'])).error).toMatch(/traffic-class/);
  });

  it('refuses a password given on the command line, or longer than 8 characters', async () => {
    const account = await h.createAccount(10);
    const inline = await cli(['add', '--email', account.email, '--system-id', 'x1', '--password', 'visible']);
    expect(inline.error).toMatch(/standard input/);
    const long = await cli(['add', '--email', account.email, '--system-id', 'x2', '--password', '-'], '123456789');
    expect(long.error).toMatch(/1 to 8/);
    expect((await cli(['list', '--email', account.email])).smpp_users).toEqual([]);
  });

  it('answers 0x0F for an unknown system id and 0x0E for a wrong password', async () => {
    const c = await smppCustomer(h);
    expect((await bindClient(h.smppPort, 'nobody', 'secret1')).status).toBe(0x0f);
    expect((await bindClient(h.smppPort, c.systemId, 'wrong')).status).toBe(0x0e);
    const ok = await bindClient(h.smppPort, c.systemId, c.password, 'transmitter');
    expect(ok.status).toBe(0);
    expect((await ask(ok.session, 'enquire_link')).command_status).toBe(0);
  });

  it('answers 0x0E outside the allow-list (as a wrong password) and 0x0D over max_binds across the deployment', async () => {
    const fenced = await smppCustomer(h, 10, { allowIps: JSON.stringify(['10.1.0.0/16']) });
    expect((await bindClient(h.smppPort, fenced.systemId, fenced.password)).status).toBe(0x0e);
    const c = await smppCustomer(h, 10, { maxBinds: 2 });
    const binds = await Promise.all([1, 2, 3, 4].map(() => bindClient(h.smppPort, c.systemId, c.password)));
    expect(binds.map((b) => b.status).sort()).toEqual([0, 0, 0x0d, 0x0d]);
    const shown = await cli(['binds', '--system-id', c.systemId]);
    expect(shown.binds).toHaveLength(2);
    expect(shown.binds[0]).toMatchObject({ system_id: c.systemId, bind: 'transceiver', address: '127.0.0.1' });
    // A closed bind frees its slot.
    const open = binds.find((b) => b.status === 0)!;
    open.session.close();
    await closed(open.session);
    await eventually(async () => (await bindClient(h.smppPort, c.systemId, c.password)).status === 0);
  });

  it('kick closes every bind of the user; remove closes them and refuses the next bind', async () => {
    const c = await smppCustomer(h);
    const a = await bindClient(h.smppPort, c.systemId, c.password);
    const b = await bindClient(h.smppPort, c.systemId, c.password, 'receiver');
    expect((await cli(['kick', '--system-id', c.systemId])).closed).toBe(2);
    await Promise.all([closed(a.session), closed(b.session)]);
    const again = await bindClient(h.smppPort, c.systemId, c.password);
    expect(again.status).toBe(0);
    expect(await cli(['remove', '--system-id', c.systemId])).toEqual({ removed: true });
    await closed(again.session);
    expect((await bindClient(h.smppPort, c.systemId, c.password)).status).toBe(0x0f);
  });

  it('refuses an archived account (or one whose parent is archived) and closes its open binds', async () => {
    const c = await smppCustomer(h);
    const open = await bindClient(h.smppPort, c.systemId, c.password);
    expect(open.status).toBe(0);
    await archiveAccount(h.ctx.db.kysely, c.id);
    await closed(open.session);
    expect((await bindClient(h.smppPort, c.systemId, c.password)).status).toBe(0x0d);
  });

  it('throttles failed binds per system id: past the limit even the right password is refused', async () => {
    const c = await smppCustomer(h);
    const tries = await Promise.all(Array.from({ length: 12 }, () => bindClient(h.smppPort, c.systemId, 'wrong')));
    const statuses = tries.map((t) => t.status);
    expect(statuses.filter((s) => s === 0x0e)).toHaveLength(10);
    expect(statuses.filter((s) => s === 0x0d)).toHaveLength(2);
    expect((await bindClient(h.smppPort, c.systemId, c.password)).status).toBe(0x0d);
  });
});
