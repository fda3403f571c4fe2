import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, closed, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import type { CustomerSession } from './session.js';

const header = (length: number, commandId: number, sequence = 1) => {
  const b = Buffer.alloc(16);
  b.writeUInt32BE(length, 0);
  b.writeUInt32BE(commandId, 4);
  b.writeUInt32BE(sequence, 12);
  return b;
};
const ENQUIRE_LINK = 0x00000015;

/** A raw connection from `localAddress`; resolves once connected. */
function rawSocket(port: number, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress }, () => resolve(socket));
    socket.on('error', () => undefined);
  });
}

/** The server's session of the client connected from `localPort`. */
const sessionFrom = (h: Harness, localPort: number) =>
  [...h.smpp!.server.sessions].find((s) => s.socket.remotePort === localPort) as CustomerSession;

const isClosed = (socket: net.Socket) =>
  new Promise<void>((r) => (socket.destroyed ? r() : socket.once('close', () => r())));

describeEngines('SMPP server: a client that does not read its answers', (engine) => {
  let h: Harness & { smppPort: number };
  // The socket's high-water mark: pausing under it would wait for a drain that never comes.
  const PAUSE_BYTES = 64 * 1024;
  beforeAll(async () => {
    h = await startSmppHarness(engine, { smpp: { outputPauseBytes: PAUSE_BYTES } });
  });
  afterAll(() => h.close());

  it('stops reading a client that does not read its answers, and answers everything once it reads again', async () => {
    const socket = await rawSocket(h.smppPort, '127.0.0.5');
    socket.pause();
    const session = sessionFrom(h, socket.localPort!);
    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, session.socket.writableLength)), 5);
    // 8 MB of enquire_link: far more answers than the kernel's buffers hold between the two.
    const chunk = Buffer.concat(Array.from({ length: 4096 }, (_, i) => header(16, ENQUIRE_LINK, i + 1)));
    let sent = 0;
    for (; sent < 8_000_000; sent += chunk.length) socket.write(chunk);
    await eventually(async () => peak >= PAUSE_BYTES);
    await new Promise((r) => setTimeout(r, 1000));
    // Answers wait in the server only up to the bound (plus the PDU being answered), not the 8 MB asked for.
    expect(peak).toBeLessThan(PAUSE_BYTES + 1024);
    expect(session.socket.bytesRead).toBeLessThan(sent);
    let received = 0;
    socket.on('data', (d: Buffer) => (received += d.length));
    socket.resume();
    await eventually(async () => received === sent, 60_000);
    clearInterval(sample);
    expect(peak).toBeLessThan(PAUSE_BYTES + 1024);
    socket.destroy();
  }, 90_000);
});

describeEngines('SMPP server: clients that never bind or never finish a PDU', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, { smpp: { bindTimeoutMs: 600, readTimeoutMs: 400, inactivityMs: 60_000 } });
  });
  afterAll(() => h.close());

  it('closes a session that does not bind in time, even one that keeps sending enquire_link', async () => {
    const socket = await rawSocket(h.smppPort, '127.0.0.6');
    const keepAlive = setInterval(() => socket.write(header(16, ENQUIRE_LINK)), 100);
    await isClosed(socket);
    clearInterval(keepAlive);
    const c = await smppCustomer(h);
    const bound = await bindClient(h.smppPort, c.systemId, c.password);
    await new Promise((r) => setTimeout(r, 900));
    expect((await ask(bound.session, 'enquire_link')).command_status).toBe(0);
    bound.session.close();
  });

  it('closes a session whose PDU does not complete within the read timeout, byte by byte or not', async () => {
    const c = await smppCustomer(h);
    const bound = await bindClient(h.smppPort, c.systemId, c.password);
    const socket = bound.session.socket as net.Socket;
    // A PDU announced at 2,000 octets and sent one octet every 100 ms would take 200 s.
    socket.write(header(2000, ENQUIRE_LINK));
    const dribble = setInterval(() => socket.writable && socket.write(Buffer.alloc(1)), 100);
    await closed(bound.session);
    clearInterval(dribble);
  });

  it('forgets a deliver_sm that is not answered in time', async () => {
    const c = await smppCustomer(h);
    const bound = await bindClient(h.smppPort, c.systemId, c.password, 'receiver');
    const session = sessionFrom(h, bound.session.socket.localPort!);
    const fields = { source_addr: '1', destination_addr: '2', short_message: Buffer.from('x') };
    const answers = await Promise.all(Array.from({ length: 50 }, () => session.deliver(fields, 50)));
    expect(answers.every((a) => a === null)).toBe(true);
    expect(session.awaiting).toBe(0);
    bound.session.close();
  });
});
