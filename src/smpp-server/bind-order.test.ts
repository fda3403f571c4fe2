import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../test/helpers/harness.js';
import { smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { smpp, type Pdu, type SmppSession } from '../smpp-protocol/pdu.js';
import { BIND_ATTEMPTS_PER_ADDRESS_AND_ID } from '../features/smpp-users/bind.js';
import { hashingLoad } from '../lib/passwords.js';

/** Connects from `localAddress` and binds; resolves with the bind_resp's command_status and the session. */
function bindFrom(
  port: number,
  localAddress: string,
  systemId: string,
  password: string,
): Promise<{ status: number; session: SmppSession }> {
  return new Promise((resolve, reject) => {
    const session = smpp.connect({ host: '127.0.0.1', port, localAddress });
    session.on('error', reject);
    session.on('enquire_link', (pdu: Pdu) => session.send(pdu.response()));
    session.on('connect', () =>
      session.bind_transceiver({ system_id: systemId, password }, (pdu: Pdu) =>
        resolve({ status: pdu.command_status, session }),
      ),
    );
  });
}

/** Binds and closes at once; resolves with the command_status. */
const statusFrom = async (port: number, localAddress: string, systemId: string, password: string) => {
  const { status, session } = await bindFrom(port, localAddress, systemId, password);
  session.close();
  return status;
};

const hashes = () => hashingLoad().started;

describeEngines('SMPP server: what a bind checks before the password, and what it counts', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  it('answers a bind from outside the allow-list as a wrong password, without hashing, right password or not', async () => {
    const c = await smppCustomer(h, 10, { allowIps: JSON.stringify(['127.0.0.2/32']) });
    const before = hashes();
    expect(await statusFrom(h.smppPort, '127.0.0.3', c.systemId, 'wrong')).toBe(0x0e);
    expect(await statusFrom(h.smppPort, '127.0.0.3', c.systemId, c.password)).toBe(0x0e);
    expect(hashes()).toBe(before);
    expect(await statusFrom(h.smppPort, '127.0.0.2', c.systemId, c.password)).toBe(0);
  });

  it('does not lock the customer out for failures from outside its allow-list', async () => {
    const c = await smppCustomer(h, 10, { allowIps: JSON.stringify(['127.0.0.4/32']) });
    const outside = await Promise.all(
      Array.from({ length: 12 }, () => statusFrom(h.smppPort, '127.0.0.5', c.systemId, 'wrong')),
    );
    expect(outside.every((s) => s === 0x0e)).toBe(true);
    expect(await statusFrom(h.smppPort, '127.0.0.4', c.systemId, c.password)).toBe(0);
  });

  it('refuses a bind over max_binds before hashing its password', async () => {
    const c = await smppCustomer(h, 10, { maxBinds: 1 });
    const held = await bindFrom(h.smppPort, '127.0.0.6', c.systemId, c.password);
    expect(held.status).toBe(0);
    const before = hashes();
    for (let i = 0; i < 5; i++) expect(await statusFrom(h.smppPort, '127.0.0.6', c.systemId, c.password)).toBe(0x0d);
    expect(hashes()).toBe(before);
    held.session.close();
  });

  it('counts every bind attempt of a system id from one address, refused or not', async () => {
    const c = await smppCustomer(h, 10, { maxBinds: 1 });
    const held = await bindFrom(h.smppPort, '127.0.0.7', c.systemId, c.password);
    for (let i = 1; i < BIND_ATTEMPTS_PER_ADDRESS_AND_ID; i++)
      expect(await statusFrom(h.smppPort, '127.0.0.7', c.systemId, c.password)).toBe(0x0d);
    held.session.close();
    await new Promise<void>((r) => held.session.socket.once('close', () => r()));
    const before = hashes();
    // The slot is free again, but this address used its attempts for this system id; another address binds.
    expect(await statusFrom(h.smppPort, '127.0.0.7', c.systemId, c.password)).toBe(0x0d);
    expect(hashes()).toBe(before);
    expect(await statusFrom(h.smppPort, '127.0.0.8', c.systemId, c.password)).toBe(0);
  });

  it('labels bind metrics with known system ids only: any other is `unknown`', async () => {
    const c = await smppCustomer(h);
    const invented = Array.from({ length: 15 }, (_, i) => `zz${i}${Math.random().toString(36).slice(2, 8)}`);
    for (const id of invented) expect(await statusFrom(h.smppPort, '127.0.0.9', id, 'pw')).toBe(0x0f);
    expect(await statusFrom(h.smppPort, '127.0.0.10', c.systemId, 'wrong')).toBe(0x0e);
    const text = await h.ctx.metrics.render();
    for (const id of invented) expect(text).not.toContain(id);
    expect(text).toMatch(/mensajero_smpp_server_binds_total\{system_id="unknown",status="15"\} 15/);
    expect(text).toContain(`mensajero_smpp_server_binds_total{system_id="${c.systemId}",status="14"} 1`);
  });

  it('labels HTTP metrics with routes, never with the path a caller invents', async () => {
    for (const path of ['/zz-invented-1', '/zz-invented-2?x=1', '/panel/zz-invented-3'])
      await h.app.inject({ method: 'GET', url: path });
    const text = await h.ctx.metrics.render();
    expect(text).not.toContain('zz-invented');
  });
});
