import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatLocalDate } from '../../lib/time.js';
import { gsmSeptets } from '../../smpp-protocol/encoding.js';

const DAY = 86_400_000;

/** A webhook receiver on 127.0.0.1 that keeps every request body. */
async function webhookReceiver() {
  const bodies: string[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(`${req.url} ${body}`);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describeEngines('SMPP carriers end to end', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, send, message, finalMessage } = smppTools(() => h);

  it('sends the PDU docs/operators/carriers-and-routes.md describes: GSM data_coding 0 with @ and $ intact, TON/NPI, registered_delivery, flash as class 0', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525511' });
    const a = await h.createAccount(100);
    await h.ctx.db.kysely
      .insertInto('senders')
      .values({ account_id: a.id, name: 'MiTienda', rcs: 0, created_at: Date.now() })
      .execute();
    await send(a.apikey, '5511000001', { message: 'Pago $5 @casa €', sender: 'MiTienda' });
    await send(a.apikey, '5511000002', { message: 'Alerta', flash: 1 });
    await eventually(async () => smsc.submitted.length >= 2);
    const [plain, flash] = [...smsc.submitted].sort((x, y) => x.destination.localeCompare(y.destination));
    expect(plain).toMatchObject({
      destination: '525511000001',
      destTon: 1,
      destNpi: 1,
      source: 'MiTienda',
      sourceTon: 5,
      sourceNpi: 0,
      dataCoding: 0,
      esmClass: 0,
      registeredDelivery: 1,
    });
    expect(plain.shortMessage.toString('hex')).toBe(Buffer.from(gsmSeptets('Pago $5 @casa €')).toString('hex'));
    expect(flash).toMatchObject({ destination: '525511000002', dataCoding: 0x10, registeredDelivery: 1 });
  });

  it('applies a receipt (id in decimal against a hex submit_sm_resp): the report shows the status and the webhook gets the confirmation', async () => {
    const hook = await webhookReceiver();
    try {
      await carrier({ receipt: () => ({ stat: 'DELIVRD', idIn: 'decimal', delayMs: 30 }) }, [], { prefix: '525512' });
      const a = await h.createAccount(100);
      expect((await h.post('/webhook/add', { url: hook.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      const [ref] = await send(a.apikey, '5512000001');
      const m = await finalMessage(ref);
      expect(m).toMatchObject({ status: 'delivered', dlr_code: 0 });
      const report = await h.post(
        '/reports/generate',
        { start_date: formatLocalDate(Date.now() - DAY), end_date: formatLocalDate(Date.now() + DAY) },
        a.apikey,
      );
      expect(report.body.report).toHaveLength(1);
      expect(report.body.report[0]).toMatchObject({ reference: ref, status_code: '0' });
      const confirmation = await eventually(async () =>
        hook.bodies.find((b) => b.includes(ref) && b.includes('type=confirmation')),
      );
      expect(confirmation).toContain('status=0');
    } finally {
      await hook.close();
    }
  });

  it.each([
    ['UNDELIV err 001 (TLVs, hex ids)', '525513', 'hex', { stat: 'UNDELIV', err: '001', tlv: true }, 6],
    ['EXPIRED (decimal submit_sm_resp id, hex receipt id)', '525514', 'decimal', { stat: 'EXPIRED', idIn: 'hex' }, 3],
    ['REJECTD arriving before its submit_sm_resp', '525515', 'hex', { stat: 'REJECTD', beforeResponse: true }, 4],
  ] as const)('maps a receipt: %s', async (_name, prefix, idFormat, plan, code) => {
    const { smsc, name } = await carrier({ receipt: () => ({ ...plan }), idFormat }, [], { prefix });
    const a = await h.createAccount(100);
    const [ref] = await send(a.apikey, `${prefix.slice(2)}000001`);
    const m = await finalMessage(ref);
    expect(m.dlr_code).toBe(code);
    // The hand-off is recorded on the message even when its receipt was applied first.
    await eventually(async () => (await message(ref)).carrier !== null);
    expect(await message(ref)).toMatchObject({ carrier: name, carrier_id: smsc.submitted[0].messageId });
    const events = await h.ctx.db.kysely.selectFrom('events').select('payload').where('reference', '=', ref).execute();
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([
      expect.objectContaining({ type: 'confirmation', status: String(code) }),
    ]);
  });

  it('binds as a transmitter and a receiver: submits on one, applies receipts from the other', async () => {
    const { smsc } = await carrier({ receipt: () => ({ stat: 'DELIVRD' }) }, ['--bind', 'transmitter-receiver'], {
      prefix: '525527',
    });
    expect([...smsc.bindTypes.values()].sort()).toEqual(['bind_receiver', 'bind_transmitter']);
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5527000001');
    expect(await finalMessage(ref)).toMatchObject({ status: 'delivered', dlr_code: 0 });
  });
});
