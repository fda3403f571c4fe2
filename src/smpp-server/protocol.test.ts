import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, closed, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import { smpp, type Pdu } from '../smpp-protocol/pdu.js';

/** A raw connection that sends `bytes` and collects what comes back until the server closes it. */
function raw(port: number, bytes: Buffer, localAddress = '127.0.0.1') {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
  const chunks: Buffer[] = [];
  socket.on('data', (d) => chunks.push(d));
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.write(bytes));
  const ended = new Promise<Buffer>((r) => socket.on('close', () => r(Buffer.concat(chunks))));
  return { socket, ended, received: () => Buffer.concat(chunks) };
}

const header = (length: number, commandId: number, sequence = 1) => {
  const b = Buffer.alloc(16);
  b.writeUInt32BE(length, 0);
  b.writeUInt32BE(commandId, 4);
  b.writeUInt32BE(sequence, 12);
  return b;
};

describeEngines('SMPP server: other PDUs, hostile input, idle sessions', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, {
      smpp: { enquireLinkMs: 300, inactivityMs: 1500, maxConnectionsPerAddress: 8 },
    });
  });
  afterAll(() => h.close());

  const text = { short_message: Buffer.from(gsmSeptets('hello')), destination_addr: '525512345678', dest_addr_ton: 1 };

  it('answers an unknown command with generic_nack 0x03 and keeps the session', async () => {
    const conn = raw(h.smppPort, header(16, 0x00000099, 7));
    // The first PDU that comes back, whole (a busy machine may take longer than any fixed wait).
    await eventually(async () => conn.received().length >= 16);
    const answer = new smpp.PDU(conn.received() as unknown as string) as Pdu;
    expect(answer.command).toBe('generic_nack');
    expect(answer.command_status).toBe(0x03);
    expect(answer.sequence_number).toBe(7);
    expect(conn.socket.destroyed).toBe(false);
    conn.socket.destroy();
  });

  it('closes only the session of a malformed or oversized PDU', async () => {
    const c = await smppCustomer(h);
    const other = await bindClient(h.smppPort, c.systemId, c.password);
    for (const bad of [
      header(8, 0x15),
      header(70_000, 0x04),
      Buffer.concat([header(40, 0x04), Buffer.alloc(24, 0xff)]),
    ]) {
      const conn = raw(h.smppPort, bad);
      await conn.ended;
    }
    expect((await ask(other.session, 'enquire_link')).command_status).toBe(0);
  });

  it('asks silent customers with enquire_link and unbinds one that stays silent', async () => {
    const c = await smppCustomer(h);
    const alive = await bindClient(h.smppPort, c.systemId, c.password);
    let asked = 0;
    const silent = await bindClient(h.smppPort, c.systemId, c.password, 'transceiver', (s) => {
      s.removeAllListeners('enquire_link');
      s.on('enquire_link', () => asked++);
      s.on('unbind', () => undefined);
    });
    await closed(silent.session);
    expect(asked).toBeGreaterThan(0);
    expect(alive.session.socket.destroyed).toBe(false);
    expect((await ask(alive.session, 'enquire_link')).command_status).toBe(0);
  });

  it('answers unbind and closes', async () => {
    const c = await smppCustomer(h);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    expect((await ask(session, 'unbind')).command_status).toBe(0);
    await closed(session);
  });

  it('query_sm reports a message of the account; cancel_sm cancels a scheduled one and refunds it', async () => {
    const c = await smppCustomer(h, 10);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const credits = async () =>
      Number(
        (
          await h.ctx.db.kysely
            .selectFrom('accounts')
            .select('credits')
            .where('id', '=', c.id)
            .executeTakeFirstOrThrow()
        ).credits,
      );
    const full = await credits();
    const later = await ask(session, 'submit_sm', { ...text, schedule_delivery_time: '000000010000000R' });
    expect(await credits()).toBeLessThan(full);
    const query = await ask(session, 'query_sm', { message_id: later.message_id, source_addr: 'whatever' });
    expect(query).toMatchObject({ command_status: 0, message_id: later.message_id, message_state: 1 });
    expect((await ask(session, 'cancel_sm', { message_id: later.message_id })).command_status).toBe(0);
    expect(await credits()).toBe(full);
    expect((await ask(session, 'cancel_sm', { message_id: later.message_id })).command_status).toBe(0x11);
    const other = await smppCustomer(h);
    const stranger = await bindClient(h.smppPort, other.systemId, other.password);
    expect((await ask(stranger.session, 'query_sm', { message_id: later.message_id })).command_status).toBe(0x67);
  });

  it('a flood of connections from one address does not keep another address out', async () => {
    const flood = Array.from({ length: 20 }, () => raw(h.smppPort, Buffer.alloc(0)));
    // The server closes the connections past the limit as they arrive (however long a busy machine takes).
    await eventually(async () => flood.filter((f) => !f.socket.destroyed).length <= 8);
    const c = await smppCustomer(h);
    const session = smpp.connect({ host: '127.0.0.1', port: h.smppPort, localAddress: '127.0.0.2' });
    session.on('error', () => undefined);
    const resp = await new Promise<Pdu>((r) =>
      session.on('connect', () => session.bind_transceiver({ system_id: c.systemId, password: c.password }, r)),
    );
    expect(resp.command_status).toBe(0);
    for (const f of flood) f.socket.destroy();
    session.close();
  });
});
