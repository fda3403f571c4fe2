import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { join, resolve } from 'node:path';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { TestSmsc, type SmscOptions } from '../../../test/helpers/smsc.js';
import { formatLocalDate } from '../../lib/time.js';
import { carrierCommands } from '../cli.js';
import { encodeMessage, gsmSeptets } from './encoding.js';
import { smppIds, storeReceipts } from '../receipts.js';
import { InboundHandler } from './inbound.js';
import { databaseSink } from '../database-sink.js';
import { parseSmppSettings } from './settings.js';
import { emptyStats } from '../status.js';

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

/** A port nothing listens on (a carrier that is down). */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describeEngines('SMPP carriers end to end', (engine) => {
  let h: Harness;
  const smscs: TestSmsc[] = [];
  let counter = 0;

  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        CARRIER_POLL_MS: '100',
        DISPATCH_RETRY_MS: '50',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
      },
    });
  });
  afterAll(async () => {
    await h.close();
    for (const s of smscs) await s.stop();
  });

  const cli = (...args: string[]) => runCommands(h.ctx, [carrierCommands], args);

  /** A test SMSC, a connector bound to it, and a route for `prefix` to it (after `before` connectors, if any). */
  async function carrier(
    options: SmscOptions = {},
    extra: string[] = [],
    route?: { prefix: string; before?: string[] },
  ) {
    const smsc = await new TestSmsc({ systemId: 'acme', password: 'secret1', ...options }).start();
    smscs.push(smsc);
    const name = `c${++counter}`;
    const added = await cli(
      'carriers',
      'add',
      'smpp',
      '--name',
      name,
      '--host',
      '127.0.0.1',
      '--port',
      String(smsc.port),
      '--system-id',
      'acme',
      '--password',
      'secret1',
      ...extra,
    );
    expect(added.error).toBeUndefined();
    if (route)
      expect(
        (
          await cli(
            'routes',
            'add',
            '--channel',
            'sms',
            '--prefix',
            route.prefix,
            '--carriers',
            [...(route.before ?? []), name].join(','),
          )
        ).error,
      ).toBeUndefined();
    await eventually(async () => smsc.binds > 0 && h.ctx.carriers.manager.connector(name)?.available, 10_000);
    if (route)
      await eventually(async () =>
        h.ctx.carriers.manager.routes.some((r) => r.prefix === route.prefix && r.carriers.includes(name)),
      );
    return { smsc, name };
  }

  const send = async (apikey: string, numbers: string, body: Record<string, unknown> = {}) => {
    const r = await h.post('/sms/send', { numbers, message: 'Hola', ...body }, apikey);
    expect(r.body.code).toBe('sms_11');
    return r.body.references.map((x: { reference: string }) => x.reference) as string[];
  };
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const finalMessage = (reference: string, timeoutMs = 10_000) =>
    eventually(async () => ((await message(reference)).stage === 2 ? message(reference) : null), timeoutMs);
  const credit = async (apikey: string) => (await h.post('/credits/consult', {}, apikey)).body.credit;

  it('sends the PDU the contract asks for: GSM data_coding 0 with @ and $ intact, TON/NPI, registered_delivery, flash as class 0', async () => {
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
    await eventually(async () => (await message(ref)).carrier_id !== null);
    expect(await message(ref)).toMatchObject({ carrier: name, carrier_id: smsc.submitted[0].messageId });
    const events = await h.ctx.db.kysely.selectFrom('events').select('payload').where('reference', '=', ref).execute();
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([
      expect.objectContaining({ type: 'confirmation', status: String(code) }),
    ]);
  });

  it('closes a permanent refusal with status 4, refunded; throttling slows down and the message goes through once', async () => {
    const { smsc, name } = await carrier(
      { answer: (s, i) => (s.destination.endsWith('99') ? { status: 0x0b } : i < 3 ? { status: 0x58 } : 'accept') },
      [],
      { prefix: '525519' },
    );
    const a = await h.createAccount(10);
    const [refused] = await send(a.apikey, '5519000099');
    expect(await finalMessage(refused)).toMatchObject({ status: 'refused', dlr_code: 4 });
    const [throttled] = await send(a.apikey, '5519000001');
    await eventually(async () => (await message(throttled)).stage === 1);
    expect(smsc.submitted.filter((s) => s.destination === '525519000001')).toHaveLength(1);
    expect(await credit(a.apikey)).toBe(9);
    const status = (await cli('carriers', 'status')).carriers.find((c: { name: string }) => c.name === name);
    expect(status).toMatchObject({ state: 'bound', refused: 1 });
    expect(status.throttled).toBeGreaterThanOrEqual(2);
  });

  it('fails a destination with no route with status 12, refunded', async () => {
    const a = await h.createAccount(10);
    await cli('routes', 'remove', '--channel', 'sms', '--prefix', '');
    await eventually(async () => !h.ctx.carriers.manager.routes.some((r) => r.channel === 'sms' && r.prefix === ''));
    try {
      const [ref] = await send(a.apikey, '3312345678');
      expect(await finalMessage(ref)).toMatchObject({ dlr_code: 12, status: 'undelivered', carrier: null });
      expect(await credit(a.apikey)).toBe(10);
    } finally {
      await cli('routes', 'add', '--channel', 'sms', '--prefix', '', '--carriers', 'simulator');
    }
  });

  it('fails over to the second connector when the first is down, and pins an account to its own route', async () => {
    const down = `down${++counter}`;
    await cli(
      'carriers',
      'add',
      'smpp',
      '--name',
      down,
      '--host',
      '127.0.0.1',
      '--port',
      String(await deadPort()),
      '--system-id',
      'x',
      '--password',
      'x',
    );
    const { smsc, name } = await carrier({}, [], { prefix: '525520', before: [down] });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5520000001');
    await eventually(async () => (await message(ref)).stage >= 1);
    expect(smsc.submitted.map((s) => s.destination)).toEqual(['525520000001']);
    expect(await message(ref)).toMatchObject({ carrier: name, carrier_id: smsc.submitted[0].messageId });
    // An account-pinned route beats the shared one, whatever its prefix.
    const own = await carrier();
    const b = await h.createAccount(10, `pinned${counter}@example.com`);
    expect(
      await cli('routes', 'add', '--channel', 'sms', '--prefix', '52', '--carriers', own.name, '--account', b.email),
    ).toEqual({ channel: 'sms', prefix: '52', carriers: [own.name], account: b.email });
    await eventually(async () => h.ctx.carriers.manager.routes.some((r) => r.accountId === b.id));
    await send(b.apikey, '5520000002');
    await eventually(async () => own.smsc.submitted.length === 1);
    expect(smsc.submitted).toHaveLength(1);
    // routes list (and the panel's operator view) names a sub-account by its plain email, never '<parent id> <email>'.
    const subEmail = `routed${counter}@example.com`;
    expect(
      (await h.post('/manager/subaccount/add', { email: subEmail, password: 'secret123' }, b.apikey)).body.success,
    ).toBe(true);
    await cli(
      'routes',
      'add',
      '--channel',
      'sms',
      '--prefix',
      '53',
      '--carriers',
      own.name,
      '--account',
      `${b.id} ${subEmail}`,
    );
    const listed = (await cli('routes', 'list')) as { routes: Array<{ prefix: string; account: string | null }> };
    expect(listed.routes.find((r) => r.prefix === '53')?.account).toBe(subEmail);
  });

  it('turns a reply into a response event, reassembles a concatenated UCS-2 reply, and keeps a reply that matches nothing', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525521' });
    const a = await h.createAccount(10);
    await h.ctx.db.kysely
      .insertInto('senders')
      .values({ account_id: a.id, name: '55123', rcs: 0, created_at: Date.now() })
      .execute();
    const [ref] = await send(a.apikey, '5521000001', { sender: '55123' });
    await eventually(async () => smsc.submitted.length === 1);
    const long = 'Sí, confirmo mi cita del jueves 😀 '.repeat(4);
    smsc.sendReply('525521000001', '55123', long, 'ucs2', { reference: 77 });
    smsc.sendReply('525521000001', '55123', 'ok @ $5', 'gsm');
    smsc.sendReply('529999999999', '55123', 'quién es?', 'latin1');
    const responses = await eventually(async () => {
      const rows = await h.ctx.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('reference', '=', ref)
        .where('type', '=', 'response')
        .execute();
      return rows.length === 2 ? rows.map((r) => JSON.parse(r.payload)) : null;
    });
    expect(responses.map((r) => r.response).sort()).toEqual([long, 'ok @ $5'].sort());
    expect(responses[0]).toMatchObject({ type: 'response', reference: ref, number: '525521000001', message: 'Hola' });
    const unmatched = await eventually(async () => {
      const r = await cli('carriers', 'replies', '--unmatched');
      return r.replies.length > 0 ? r.replies : null;
    });
    expect(unmatched[0]).toMatchObject({ number: '529999999999', to: '55123', text: 'quién es?' });
    expect(await h.ctx.db.kysely.selectFrom('smpp_reply_parts').selectAll().execute()).toEqual([]);
  });

  it('a reply to an address no account claims goes to the latest message to that number through this connector within the match window, else to nobody', async () => {
    const { smsc, name } = await carrier({}, [], { prefix: '525523' });
    const [a, b] = [await h.createAccount(10), await h.createAccount(10)];
    // B's messages to these numbers go through the simulator: B never wrote to anyone through this SMSC.
    expect(
      (
        await cli(
          'routes',
          'add',
          '--channel',
          'sms',
          '--prefix',
          '525523',
          '--carriers',
          'simulator',
          '--account',
          b.email,
        )
      ).error,
    ).toBeUndefined();
    await eventually(async () =>
      h.ctx.carriers.manager.routes.some((r) => r.prefix === '525523' && r.accountId === b.id),
    );
    const [old] = await send(a.apikey, '5523000001');
    await eventually(async () => (await message(old)).carrier === name);
    const past = Date.now() - (h.config.REPLY_MATCH_WINDOW_HOURS + 1) * 3_600_000;
    await h.ctx.db.kysely
      .updateTable('messages')
      .set({ created_at: past, sent_at: past })
      .where('reference', '=', old)
      .execute();
    const [other] = await send(b.apikey, '5523000001');
    await eventually(async () => (await message(other)).carrier === 'simulator');

    const replies = () =>
      h.ctx.db.kysely
        .selectFrom('replies')
        .select(['account_id', 'text'])
        .where('number', '=', '525523000001')
        .orderBy('id')
        .execute();
    const unmatched = () =>
      h.ctx.db.kysely
        .selectFrom('unmatched_replies')
        .select(['carrier', 'destination', 'text'])
        .where('source', '=', '525523000001')
        .execute();
    // A's message is older than the window, B's went elsewhere: nobody's.
    smsc.sendReply('525523000001', '55990', '¿Quién habla?');
    expect(await eventually(async () => ((await unmatched()).length > 0 ? unmatched() : null), 10_000)).toEqual([
      { carrier: name, destination: '55990', text: '¿Quién habla?' },
    ]);
    expect(await replies()).toEqual([]);

    // A writes again through this SMSC: the next reply is A's.
    const [recent] = await send(a.apikey, '5523000001');
    // The reply matches by the connector recorded on the message, written once the SMSC answered the submit_sm.
    await eventually(async () => (await message(recent)).carrier === name);
    smsc.sendReply('525523000001', '55990', 'Ya veo, gracias');
    expect(await eventually(async () => ((await replies()).length > 0 ? replies() : null), 10_000)).toEqual([
      { account_id: a.id, text: 'Ya veo, gracias' },
    ]);
    expect(
      (
        await h.ctx.db.kysely
          .selectFrom('replies')
          .select('message_id')
          .where('number', '=', '525523000001')
          .executeTakeFirstOrThrow()
      ).message_id,
    ).toBe((await message(recent)).id);
  });

  it('reassembles a reply sent with SAR TLVs', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525522' });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5522000001');
    await eventually(async () => smsc.submitted.length === 1);
    const long = 'Quiero cambiar la fecha de entrega al proximo lunes por la tarde, gracias. '.repeat(3);
    smsc.sendReply('525522000001', '', long, 'gsm', { sar: true, reference: 9 });
    const row = await eventually(() =>
      h.ctx.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('reference', '=', ref)
        .where('type', '=', 'response')
        .executeTakeFirst(),
    );
    expect(JSON.parse(row.payload).response).toBe(long);
  });

  it('loses nothing when the connection drops with a full window, and no message shows twice in reports', async () => {
    let silent = true;
    const { smsc, name } = await carrier({ answer: () => (silent ? 'silence' : 'accept') }, ['--window', '5'], {
      prefix: '525523',
    });
    const a = await h.createAccount(100);
    const numbers = Array.from({ length: 12 }, (_, i) => `55230000${String(i).padStart(2, '0')}`);
    const refs = await send(a.apikey, numbers.join(','));
    await eventually(async () => smsc.submitted.length >= 5);
    const stats = h.ctx.carriers.manager.connector(name)!.stats;
    expect(stats.window_in_use).toBe(5);
    expect(smsc.submitted).toHaveLength(5); // the window holds the rest back
    silent = false;
    smsc.dropAll();
    await eventually(async () => {
      const rows = await h.ctx.db.kysely
        .selectFrom('messages')
        .select('stage')
        .where('reference', 'in', refs)
        .execute();
      return rows.every((r) => r.stage === 1);
    }, 15_000);
    const report = await h.post(
      '/reports/generate',
      { start_date: formatLocalDate(Date.now() - DAY), end_date: formatLocalDate(Date.now() + DAY) },
      a.apikey,
    );
    expect(report.body.report.map((r: { reference: string }) => r.reference).sort()).toEqual([...refs].sort());
    expect(new Set(smsc.submitted.filter((s) => s.messageId !== '').map((s) => s.destination)).size).toBe(12);
  });

  it('closes only the session that got a hostile PDU, rebinds, and keeps sending', async () => {
    const { smsc, name } = await carrier({}, ['--enquire-link-seconds', '1'], { prefix: '525524' });
    const binds = smsc.bindCount;
    // A command_length far above the maximum, then a truncated deliver_sm.
    smsc.sendRaw(Buffer.from('ffffffff0000000500000000000000010000', 'hex'));
    await eventually(async () => smsc.bindCount > binds && h.ctx.carriers.manager.connector(name)?.available, 10_000);
    const before = smsc.bindCount;
    smsc.sendRaw(Buffer.from('0000001400000005000000000000000700', 'hex'));
    smsc.sendRaw(Buffer.from('000000110000000500000000000000070001', 'hex'));
    await eventually(async () => smsc.bindCount > before && h.ctx.carriers.manager.connector(name)?.available, 10_000);
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5524000001');
    await eventually(async () => (await message(ref)).stage === 1);
    await eventually(async () => smsc.enquireLinks > 0, 5000);
    const status = (await cli('carriers', 'status')).carriers.find((c: { name: string }) => c.name === name);
    expect(status.errors).toBeGreaterThanOrEqual(2);
    expect(status.last_error).toMatch(/PDU|closed|error/i);
    const metrics = (await h.get('/metrics')).body as string;
    expect(metrics).toContain(`mensajero_carrier_state{carrier="${name}",state="bound"} 1`);
    expect(metrics).toMatch(new RegExp(`mensajero_carrier_messages\\{carrier="${name}",kind="errors"\\} [2-9]`));
  });

  it('applies a receipt delivered twice at once, and records a reply whose last part comes twice at once, exactly once', async () => {
    const { smsc, name } = await carrier({}, [], { prefix: '525525' });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5525000001');
    await eventually(async () => (await message(ref)).stage === 1);
    const id = smsc.submitted[0].messageId;
    const decimal = BigInt(`0x${id}`).toString(10);
    await Promise.all([
      storeReceipts(h.ctx, smppIds, name, [{ carrierId: id, code: 0, at: Date.now() }]),
      storeReceipts(h.ctx, smppIds, name, [{ carrierId: decimal, code: 1, at: Date.now() }]),
    ]);
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('reference', '=', ref)
      .where('type', '=', 'confirmation')
      .execute();
    expect(events).toHaveLength(1);
    const inbound = new InboundHandler(
      databaseSink(h.ctx, smppIds),
      name,
      parseSmppSettings({ host: 'x', port: 1, system_id: 'x' }),
      emptyStats(),
    );
    const parts = encodeMessage('x'.repeat(200), { coding: 'gsm' }, 5).map((seg) => ({
      source_addr: '525525000001',
      destination_addr: '',
      esm_class: seg.esmClass,
      data_coding: seg.dataCoding,
      short_message: seg.shortMessage,
    }));
    await inbound.handle(parts[0] as never);
    await Promise.all([
      inbound.handle(parts[1] as never),
      inbound.handle(parts[1] as never),
      new InboundHandler(
        databaseSink(h.ctx, smppIds),
        name,
        parseSmppSettings({ host: 'x', port: 1, system_id: 'x' }),
        emptyStats(),
      ).handle(parts[1] as never),
    ]);
    const replies = await h.ctx.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('reference', '=', ref)
      .where('type', '=', 'response')
      .execute();
    expect(replies.map((r) => JSON.parse(r.payload).response)).toEqual(['x'.repeat(200)]);
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

  it('binds over TLS, verifying the SMSC certificate against --tls-ca, and stays down when it cannot verify it', async () => {
    const tlsDir = resolve(import.meta.dirname, '../../../test/helpers/tls');
    const tls = {
      key: readFileSync(join(tlsDir, 'smsc-key.pem'), 'utf8'),
      cert: readFileSync(join(tlsDir, 'smsc-cert.pem'), 'utf8'),
    };
    const { smsc } = await carrier({ tls }, ['--tls', '--tls-ca', join(tlsDir, 'smsc-cert.pem')], { prefix: '525526' });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5526000001');
    await eventually(async () => (await message(ref)).stage === 1);
    expect(smsc.submitted.map((s) => s.destination)).toEqual(['525526000001']);
    const unverified = `tls${++counter}`;
    await cli(
      'carriers',
      'add',
      'smpp',
      '--name',
      unverified,
      '--host',
      '127.0.0.1',
      '--port',
      String(smsc.port),
      '--system-id',
      'acme',
      '--password',
      'secret1',
      '--tls',
    );
    const status = await eventually(
      async () =>
        (await cli('carriers', 'status')).carriers.find(
          (c: { name: string; last_error: string | null }) => c.name === unverified && c.last_error,
        ),
      10_000,
    );
    expect(status.state).toBe('connecting');
    expect(status.last_error).toMatch(/certificate/i);
    await cli('carriers', 'remove', '--name', unverified);
  });

  it('keeps the password out of every CLI answer, and rebinds within seconds after carriers set', async () => {
    const { smsc, name } = await carrier({ systemId: undefined, password: 'newpass' }, ['--password', 'newpass']);
    const listed = await cli('carriers', 'list');
    expect(JSON.stringify(listed)).not.toContain('newpass');
    const row = await h.ctx.db.kysely
      .selectFrom('carriers')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    expect(row.password_enc).not.toContain('newpass');
    const changed = await cli('carriers', 'set', '--name', name, '--system-id', 'acme2', '--window', '20');
    expect(changed).toMatchObject({ name, type: 'smpp', system_id: 'acme2', window: 20, enabled: true });
    expect(JSON.stringify(changed)).not.toContain('newpass');
    await eventually(
      async () => smsc.systemIds.includes('acme2') && h.ctx.carriers.manager.connector(name)?.available,
      10_000,
    );
    expect(smsc.unbinds).toBeGreaterThanOrEqual(1);
    expect(await cli('carriers', 'disable', '--name', name)).toMatchObject({ enabled: false });
    await eventually(async () => smsc.binds === 0);
    expect((await cli('carriers', 'status')).carriers.find((c: { name: string }) => c.name === name).state).toBe(
      'disabled',
    );
    expect((await cli('carriers', 'remove', '--name', name)).name).toBe(name);
    expect((await cli('carriers', 'list')).carriers.map((c: { name: string }) => c.name)).not.toContain(name);
  });
});
