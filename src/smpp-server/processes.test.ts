import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually } from '../../test/helpers/harness.js';
import { cliEnv, runMensajeroJson, startServe, type CliEnv } from '../../test/helpers/cli.js';
import { ask, bindClient, closed } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { Pdu } from '../smpp-protocol/pdu.js';
import { openDatabase } from '../db/engine.js';

type Serving = Awaited<ReturnType<typeof startServe>>;

/** The SMPP port in the "mensajero is serving" line. */
const smppPort = (s: Serving) => Number(/"smpp_port":(\d+)/.exec(s.output())![1]);

describeEngines('SMPP server: two processes, one deployment', (engine) => {
  let env: CliEnv;
  const serving: Serving[] = [];
  const start = async () => {
    const s = await startServe({
      ...env.env,
      SMPP_SERVER_PORT: '0',
      SMPP_SERVER_HOST: '127.0.0.1',
      WORKER_POLL_MS: '20',
    });
    serving.push(s);
    return s;
  };
  beforeAll(async () => {
    env = await cliEnv(engine, {}, { migrated: true });
    const created = runMensajeroJson(
      ['accounts', 'create', '--email', 'reseller@example.com', '--credits', '100', '--password-stdin'],
      env.env,
      'longpassword1\n',
    );
    expect(created.code).toBe(0);
    const added = runMensajeroJson(
      [
        'smpp-users',
        'add',
        '--email',
        'reseller@example.com',
        '--system-id',
        'resel',
        '--password',
        '-',
        '--max-binds',
        '1',
      ],
      env.env,
      'k4nnel01\n',
    );
    expect(added.json).toMatchObject({ system_id: 'resel', max_binds: 1 });
    expect(added.out).not.toContain('k4nnel01');
  }, 60_000);
  afterAll(async () => {
    for (const s of serving) s.child.kill('SIGKILL');
    await env.cleanup();
  });

  it('shares max_binds across processes; a killed holder frees its bind and loses no receipt', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    // The receiver on A holds the receipts unanswered, as a customer whose link stalls.
    const held: Pdu[] = [];
    const rx = await bindClient(smppPort(a), 'resel', 'k4nnel01', 'receiver', (s) =>
      s.on('deliver_sm', (p: Pdu) => held.push(p)),
    );
    expect(rx.status).toBe(0);
    expect((await bindClient(smppPort(b), 'resel', 'k4nnel01')).status).toBe(0x0d);
    const listed = runMensajeroJson(['smpp-users', 'binds'], env.env);
    expect(listed.json.binds).toEqual([
      expect.objectContaining({ system_id: 'resel', bind: 'receiver', address: '127.0.0.1' }),
    ]);
    // The user may hold one bind: raise it to two to submit through B meanwhile.
    runMensajeroJson(['smpp-users', 'set', '--system-id', 'resel', '--max-binds', '2'], env.env);
    const tx = await bindClient(smppPort(b), 'resel', 'k4nnel01', 'transmitter');
    expect(tx.status).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const resp = await ask(tx.session, 'submit_sm', {
        destination_addr: '525512345678',
        dest_addr_ton: 1,
        registered_delivery: 1,
        short_message: Buffer.from(gsmSeptets(`kill test ${i}`)),
      });
      expect(resp.command_status).toBe(0);
      ids.push(resp.message_id);
    }
    await eventually(async () => held.length > 0, 15_000);
    a.child.kill('SIGKILL');
    await closed(rx.session);
    // Within the lease the bind is freed; B then delivers every receipt, including the ones A had sent unanswered.
    const got: Pdu[] = [];
    await eventually(
      async () => {
        const again = await bindClient(smppPort(b), 'resel', 'k4nnel01', 'receiver', (s) =>
          s.on('deliver_sm', (p: Pdu) => {
            got.push(p);
            s.send(p.response());
          }),
        );
        return again.status === 0;
      },
      6_000,
      500,
    );
    // What A had sent unanswered is taken over once A's claim lapses (CLAIM_MS).
    await eventually(async () => new Set(got.map((p) => p.receipted_message_id)).size === 4, 60_000, 200);
    expect([...new Set(got.map((p) => p.receipted_message_id))].sort()).toEqual([...ids].sort());
    const kicked = runMensajeroJson(['smpp-users', 'kick', '--system-id', 'resel'], env.env);
    expect(kicked.json).toEqual({ closed: 2 });
  }, 120_000);

  it('shares throughput across processes: no 100 ms-slotted second holds more than N parts', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    runMensajeroJson(
      [
        'smpp-users',
        'add',
        '--email',
        'reseller@example.com',
        '--system-id',
        'fast',
        '--password',
        '-',
        '--throughput',
        '5',
      ],
      env.env,
      'fast0001\n',
    );
    const sessions = await Promise.all([a, b].map((s) => bindClient(smppPort(s), 'fast', 'fast0001', 'transmitter')));
    const answers = await Promise.all(
      sessions.flatMap(({ session }) =>
        Array.from({ length: 10 }, () =>
          ask(session, 'submit_sm', {
            destination_addr: '525512345678',
            dest_addr_ton: 1,
            short_message: Buffer.from(gsmSeptets('burst')),
          }),
        ),
      ),
    );
    const accepted = answers.filter((p) => p.command_status === 0).length;
    expect(accepted).toBeGreaterThanOrEqual(5);
    expect(answers.filter((p) => p.command_status === 0x58).length).toBeGreaterThan(0);
    const db = await openDatabase(env.env.DATABASE_URL);
    try {
      const slots = await db.kysely
        .selectFrom('carrier_rate')
        .select(['second', 'used'])
        .where(
          'carrier',
          '=',
          `smpp-user:${(await db.kysely.selectFrom('smpp_users').select('id').where('system_id', '=', 'fast').executeTakeFirstOrThrow()).id}`,
        )
        .execute();
      // Every submit_sm counts, refused ones too; once 5 parts are counted in the window, the rest is refused.
      expect(slots.reduce((n, s) => n + Number(s.used), 0)).toBe(answers.length);
      const seconds = slots.map((s) => Number(s.second));
      const windows = Math.ceil((Math.max(...seconds) - Math.min(...seconds) + 1) / 10);
      expect(accepted).toBeLessThanOrEqual(5 * windows);
    } finally {
      await db.close();
    }
  }, 120_000);
});
