import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { accountCommands } from '../features/accounts/cli.js';
import { toUnits } from '../accounts/credits.js';
import { formatLocalDate } from '../lib/time.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { SmppSession } from '../smpp-protocol/pdu.js';

/**
 * The daily spending limit (`accounts set --daily-spend`) met by a customer bound over SMPP: the submit_sm within it
 * are taken and charged as usual, those past it are answered 0x45 (submit failed) and cost nothing.
 */
describeEngines('SMPP server: daily spending limit', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());
  const mensajero = (...args: string[]) => runCommands(h.ctx, [accountCommands], [...args, '--json']);

  let serial = 0;
  const submit = (session: SmppSession) =>
    ask(session, 'submit_sm', {
      destination_addr: `5255${String(++serial).padStart(8, '0')}`,
      dest_addr_ton: 1,
      short_message: Buffer.from(gsmSeptets('Hola')),
    });
  const balance = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );
  const messagesOf = (id: number) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('account_id', '=', id).orderBy('id').execute();
  const spentToday = async (id: number) =>
    Number(
      (
        await h.ctx.db.kysely
          .selectFrom('spend_days')
          .select('units')
          .where('root_account_id', '=', id)
          .where('day', '=', formatLocalDate(Date.now()))
          .executeTakeFirst()
      )?.units ?? 0,
    );

  it('takes and charges the submit_sm within the limit, answers 0x45 past it and charges nothing for those', async () => {
    const c = await smppCustomer(h, 100);
    expect(await mensajero('accounts', 'set', '--email', c.email, '--daily-spend', '5')).toMatchObject({
      daily_spend: 5,
    });
    const { session, status } = await bindClient(h.smppPort, c.systemId, c.password);
    expect(status).toBe(0);
    const before = await balance(c.id);

    // Honest sends, one at a time, well within the limit.
    const honest = [await submit(session), await submit(session), await submit(session)];
    expect(honest.map((r) => r.command_status)).toEqual([0, 0, 0]);
    const unit = (before - (await balance(c.id))) / 3;
    expect(unit).toBe(toUnits(1));

    // A burst read in one turn: the first two fit the limit, the rest is refused.
    const socket = (session as unknown as { socket: import('node:net').Socket }).socket;
    socket.cork();
    const burst = Array.from({ length: 4 }, () => submit(session));
    socket.uncork();
    expect((await Promise.all(burst)).map((r) => r.command_status)).toEqual([0, 0, 0x45, 0x45]);
    // And every later one, until the Mexico City day ends or the operator raises the limit.
    expect((await submit(session)).command_status).toBe(0x45);

    expect(before - (await balance(c.id))).toBe(toUnits(5));
    expect(await spentToday(c.id)).toBe(toUnits(5));
    const taken = [...honest, ...(await Promise.all(burst)).filter((r) => r.command_status === 0)];
    const rows = await messagesOf(c.id);
    expect(rows.map((m) => m.reference)).toEqual(taken.map((r) => r.message_id));
    // What passed goes out as usual: the simulator delivers it.
    await eventually(async () => (await messagesOf(c.id)).every((m) => m.status === 'delivered'), 10_000);

    // The operator raises the limit: the same bind sends again.
    await mensajero('accounts', 'set', '--email', c.email, '--daily-spend', '6');
    expect((await submit(session)).command_status).toBe(0);
    expect(before - (await balance(c.id))).toBe(toUnits(6));
    session.close();
  }, 60_000);
});
