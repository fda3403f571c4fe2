import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { startHttpServer } from '../../../test/helpers/http-server.js';
import { startTwimlApi } from '../../../test/helpers/twiml-voice.js';
import { routeToProvider } from '../../../test/helpers/providers.js';

// These wait on dispatch retries and webhook deliveries; CI runs them beside the crash suite, which loads both cores.
vi.setConfig({ testTimeout: 90_000 });

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twiml-auth-token-xyz';

describeEngines('TwiML voice connector', (engine) => {
  let h: Harness;
  let api: Awaited<ReturnType<typeof startTwimlApi>>;
  let hooks: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        DISPATCH_RETRY_MS: '10',
        CARRIER_POLL_MS: '100',
      },
    });
    api = await startTwimlApi({ accountSid: SID, authToken: TOKEN });
    hooks = await startHttpServer(() => ({ status: 200, body: 'ok', type: 'text/plain' }));
    // Voice is routed through the route table like SMS: the default voice route now goes to this connector.
    await routeToProvider(h, {
      name: 'calls',
      type: 'twiml-voice',
      channel: 'voice',
      options: { accountSid: SID, caller: '+525500000000', apiUrl: api.url, messagesPerSecond: 50 },
      secrets: { auth_token: TOKEN },
    });
  });
  afterAll(async () => {
    await h.close();
    await api.stop();
    await hooks.stop();
  });

  const setup = async () => {
    const a = await h.createAccount(50);
    expect((await h.post('/webhook/add', { url: `${hooks.url}/hook/${a.id}`, status: '1' }, a.apikey)).body.code).toBe(
      'add_webhook_01',
    );
    return a;
  };
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  // Sent: the hand-off recorded (the connector names the carrier id on the message a moment before).
  const sent = (reference: string) =>
    eventually(async () => {
      const row = await message(reference);
      return row.stage >= 1 && row.carrier_id ? row : null;
    }, 40_000);
  const events = (accountId: number) =>
    hooks.seen
      .filter((r) => r.method === 'POST' && r.path === `/hook/${accountId}`)
      .map((r) => Object.fromEntries(new URLSearchParams(r.body)));
  const callbackUrl = () => `${h.config.publicBaseUrl}/carriers/twiml-voice/calls/status`;
  const callback = (params: Record<string, string>, signature?: string) =>
    h.request('POST', '/carriers/twiml-voice/calls/status', {
      form: params,
      headers: signature ? { 'x-twilio-signature': signature } : {},
    });
  const send = (a: { apikey: string }, numbers: string, fields: Record<string, unknown> = {}) =>
    h.post(
      '/voice/send',
      { numbers, country_code: '52', template: 'b', code: 'A7K2', company: 'Acme', ...fields },
      a.apikey,
    );

  it('creates the call with inline TwiML; the signed status callback updates the status and reaches the account webhook', async () => {
    const a = await setup();
    const r = await send(a, '5512345678');
    expect(r.status).toBe(200);
    const m = await sent(r.body.references[0].reference);
    const call = api.calls().find((c) => c.form.To === '+525512345678')!;
    expect(call.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    expect(call.form).toMatchObject({
      From: '+525500000000',
      StatusCallback: callbackUrl(),
      StatusCallbackMethod: 'POST',
    });
    expect(call.form.Twiml).toContain('<Say voice="Polly.Mia" language="es-MX">Hola, te llamamos de Acme.');
    // The code character by character with pauses, repeated once.
    expect(call.form.Twiml).toContain(
      '<Say voice="Polly.Mia" language="es-MX">Repito:</Say><Say voice="Polly.Mia" language="es-MX">A</Say><Pause length="1"/><Say voice="Polly.Mia" language="es-MX">7</Say><Pause length="1"/>',
    );

    const params = {
      CallSid: m.carrier_id!,
      AccountSid: SID,
      CallStatus: 'completed',
      From: '+525500000000',
      To: '+525512345678',
      CallDuration: '14',
    };
    const answers = await Promise.all([1, 2, 3].map(() => callback(params, api.sign(callbackUrl(), params))));
    expect(answers.map((x) => x.status)).toEqual([204, 204, 204]);
    expect(await message(m.reference)).toMatchObject({ stage: 2, status: 'delivered', dlr_code: 0 });
    await eventually(async () => events(a.id).length >= 1, 40_000);
    expect(events(a.id)).toEqual([
      expect.objectContaining({ type: 'confirmation', reference: m.reference, status: '0', number: '525512345678' }),
    ]);
  });

  it('takes a signed status callback over 4 KiB (all of the documented parameters, a long CallToken)', async () => {
    const a = await setup();
    const m = await sent((await send(a, '5512345670')).body.references[0].reference);
    // https://www.twilio.com/docs/voice/api/call-resource#statuscallback: the call's parameters, its geography, the callback's own.
    const params = {
      CallSid: m.carrier_id!,
      AccountSid: SID,
      CallStatus: 'completed',
      From: '+525500000000',
      To: '+525512345670',
      CallDuration: '9',
      Duration: '1',
      ApiVersion: '2010-04-01',
      Direction: 'outbound-api',
      CallerName: '',
      ForwardedFrom: '',
      ParentCallSid: '',
      SipResponseCode: '200',
      Timestamp: new Date().toUTCString(),
      CallbackSource: 'call-progress-events',
      SequenceNumber: '3',
      FromCity: 'CIUDAD DE MEXICO',
      FromState: 'CDMX',
      FromZip: '',
      FromCountry: 'MX',
      ToCity: 'CIUDAD DE MEXICO',
      ToState: 'CDMX',
      ToZip: '',
      ToCountry: 'MX',
      CallToken: `%7B%22parentCallInfoToken%22%3A%22${'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9'.repeat(100)}%22%7D`,
    };
    expect(new URLSearchParams(params).toString().length).toBeGreaterThan(4096);
    expect((await callback(params, api.sign(callbackUrl(), params))).status).toBe(204);
    expect(await message(m.reference)).toMatchObject({ stage: 2, status: 'delivered', dlr_code: 0 });
  });

  it('a status callback posted before the call is answered waits for the call sid, then applies', async () => {
    const a = await setup();
    const early: Array<{ sid: string; recorded: boolean; answer: number }> = [];
    api.before.answer = async (sid, form) => {
      if (form.get('To') !== '+525512346666') return;
      const recorded = await h.ctx.db.kysely
        .selectFrom('provider_message_ids')
        .select('message_id')
        .where('carrier', '=', 'calls')
        .where('carrier_id', '=', sid)
        .executeTakeFirst();
      const params = { CallSid: sid, AccountSid: SID, CallStatus: 'busy', From: '+525500000000', To: '+525512346666' };
      early.push({
        sid,
        recorded: recorded !== undefined,
        answer: (await callback(params, api.sign(callbackUrl(), params))).status,
      });
    };
    try {
      const r = await send(a, '5512346666');
      const ref = r.body.references[0].reference;
      // The status may be applied before the dispatcher records the send: wait for both.
      const m = await eventually(async () => {
        const row = await message(ref);
        return row.stage === 2 && row.carrier ? row : null;
      }, 40_000);
      expect(early).toEqual([{ sid: m.carrier_id, recorded: false, answer: 204 }]);
      expect(m).toMatchObject({ carrier: 'calls', status: 'undelivered', dlr_code: 2 });
      await eventually(async () => events(a.id).length >= 1, 40_000);
      expect(events(a.id)).toEqual([expect.objectContaining({ type: 'confirmation', reference: ref, status: '2' })]);
    } finally {
      api.before.answer = null;
    }
  });

  it('maps busy, no-answer, failed and canceled to the spec status codes', async () => {
    const a = await setup();
    const cases: Array<[string, string, number, string?]> = [
      ['5512340001', 'busy', 2],
      ['5512340002', 'no-answer', 1],
      ['5512340003', 'failed', 6, '21211'],
      ['5512340004', 'failed', 1],
      ['5512340005', 'canceled', 4],
    ];
    const r = await send(a, cases.map((c) => c[0]).join(','));
    const refs: string[] = r.body.references.map((x: { reference: string }) => x.reference);
    for (const [k, [, status, code, errorCode]] of cases.entries()) {
      const m = await sent(refs[k]);
      const params: Record<string, string> = {
        CallSid: m.carrier_id!,
        AccountSid: SID,
        CallStatus: status,
        ...(errorCode ? { ErrorCode: errorCode } : {}),
      };
      expect((await callback(params, api.sign(callbackUrl(), params))).status).toBe(204);
      expect((await message(refs[k])).dlr_code).toBe(code);
    }
  });

  it('refuses and records unsigned or wrongly signed callbacks', async () => {
    const params = { CallSid: 'CAforged', AccountSid: SID, CallStatus: 'completed' };
    expect((await callback(params)).status).toBe(401);
    const wrong = await callback(params, api.sign(callbackUrl(), params, 'guessed-token'));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ success: false, code: 'provider_02' });
    // Signed for other parameters: refused too.
    expect((await callback({ ...params, CallStatus: 'busy' }, api.sign(callbackUrl(), params))).status).toBe(401);
    // Counted per address, source, reason and hour: the two wrong signatures are one row.
    const rows = await h.ctx.db.kysely
      .selectFrom('provider_rejections')
      .select(['carrier', 'reason', 'attempts'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { carrier: 'calls', reason: 'unsigned status callback', attempts: 1 },
      { carrier: 'calls', reason: 'wrong X-Twilio-Signature', attempts: 2 },
    ]);
  });

  it('retries when the API rate-limits or is down: one call once it answers, charged once; an invalid number is final', async () => {
    const a = await setup();
    const before = (await h.post('/credits/consult', {}, a.apikey)).body.credit;
    api.failures.push(
      { http: 429, code: 20429, message: 'Too Many Requests' },
      { http: 503, code: 20500, message: 'Service unavailable' },
    );
    const r = await send(a, '5512349999');
    const ref = r.body.references[0].reference;
    await sent(ref);
    expect(api.calls().filter((c) => c.form.To === '+525512349999')).toHaveLength(3);
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(before - r.body.credit);

    api.failures.push({ http: 400, code: 21211, message: "The 'To' number is not a valid phone number." });
    const bad = await send(a, '5512348888');
    const badRef = bad.body.references[0].reference;
    const closed = await eventually(async () => ((await message(badRef)).stage === 2 ? message(badRef) : null), 40_000);
    expect(closed).toMatchObject({ dlr_code: 7, carrier: 'calls' });
  });
});
