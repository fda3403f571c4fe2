import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, closed, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import { removeSmppUser } from '../features/smpp-users/service.js';
import type { SmppSession } from '../smpp-protocol/pdu.js';

describeEngines('SMPP server: resubmission after a lost submit_sm_resp', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  const messagesOf = async (accountId: number) =>
    h.ctx.db.kysely.selectFrom('messages').select(['reference', 'text']).where('account_id', '=', accountId).execute();
  const balance = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );
  const fields = (text: string) => ({
    source_addr: 'Shop',
    destination_addr: '525512345678',
    dest_addr_ton: 1,
    registered_delivery: 1,
    short_message: Buffer.from(gsmSeptets(text)),
  });
  const submit = (session: SmppSession, text: string) => ask(session, 'submit_sm', fields(text));
  const waiting = (state: 'running' | 'done') =>
    eventually(async () => {
      const rows = await h.ctx.db.kysely.selectFrom('smpp_resubmits').select('reference').execute();
      return rows.length === 1 && (rows[0].reference === null) === (state === 'running');
    }, 10_000);

  /** Holds every send at the group commit until `release()`: the bind can drop while its submit_sm runs. */
  function holdSends() {
    const groupCommit = h.ctx.groupCommit;
    const run = groupCommit.run.bind(groupCommit);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    groupCommit.run = (async (...args: Parameters<typeof groupCommit.run>) => {
      await gate;
      return run(...args);
    }) as typeof groupCommit.run;
    return () => {
      groupCommit.run = run;
      release();
    };
  }

  /** Sends a submit_sm and drops the bind before its answer can be written. */
  async function submitAndDrop(c: { systemId: string; password: string }, text: string) {
    const release = holdSends();
    const { session } = await bindClient(h.smppPort, c.systemId, c.password, 'transmitter');
    session.submit_sm(fields(text));
    await eventually(async () => (await h.ctx.db.kysely.selectFrom('smpp_binds').select('slot').execute()).length > 0);
    await new Promise((r) => setTimeout(r, 50));
    session.socket.destroy();
    await closed(session);
    await waiting('running');
    release();
    await waiting('done');
  }

  it('answers the resubmission of a submit_sm whose response the dropped bind never got with its message_id', async () => {
    const c = await smppCustomer(h);
    const before = await balance(c.id);
    await submitAndDrop(c, 'pedido 42 enviado');
    const [first] = await messagesOf(c.id);
    expect(first.text).toBe('pedido 42 enviado');
    const spent = before - (await balance(c.id));

    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const again = await submit(session, 'pedido 42 enviado');
    expect(again.command_status).toBe(0);
    expect(again.message_id).toBe(first.reference);
    expect(await messagesOf(c.id)).toHaveLength(1);
    expect(before - (await balance(c.id))).toBe(spent);
    // The record answered one resubmission: the same message sent again on purpose is a new message.
    const third = await submit(session, 'pedido 42 enviado');
    expect(third.message_id).not.toBe(first.reference);
    expect(await messagesOf(c.id)).toHaveLength(2);
    expect(await h.ctx.metrics.render()).toMatch(/mensajero_smpp_server_resubmits_total\{system_id="[^"]+"\} 1/);
    session.close();
  });

  it('never merges identical messages whose responses were written, nor a different text', async () => {
    const c = await smppCustomer(h);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const a = await submit(session, 'same text');
    const b = await submit(session, 'same text');
    expect(a.message_id).not.toBe(b.message_id);
    session.close();
    await closed(session);
    const next = await bindClient(h.smppPort, c.systemId, c.password);
    const d = await submit(next.session, 'same text');
    expect(new Set([a.message_id, b.message_id, d.message_id]).size).toBe(3);

    await submitAndDrop(c, 'lost answer');
    const other = await bindClient(h.smppPort, c.systemId, c.password);
    const changed = await submit(other.session, 'lost answer!');
    expect((await messagesOf(c.id)).map((m) => m.text).filter((t) => t.startsWith('lost'))).toEqual([
      'lost answer',
      'lost answer!',
    ]);
    expect(changed.command_status).toBe(0);
    other.session.close();
    next.session.close();
    // Removing the SMPP user forgets what its binds left unanswered.
    expect(await h.ctx.db.kysely.selectFrom('smpp_resubmits').select('id').execute()).toHaveLength(1);
    expect(await removeSmppUser(h.ctx.db, c.systemId)).toBe(true);
    expect(await h.ctx.db.kysely.selectFrom('smpp_resubmits').select('id').execute()).toEqual([]);
  });
});
