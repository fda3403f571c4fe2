import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { routingTools } from '../../../test/helpers/routing.js';
import { SMPP_ENV } from '../../../test/helpers/smpp-suite.js';
import { messageCommands } from './cli.js';
import { traceText } from './steps.js';
import { pruneFailedAttempts } from '../../messaging/attempts.js';

/* Two test SMSCs at different costs: the cheap one throttles then fails the first message, the dear one sends UNDELIV. */
describeEngines('messages trace: who accepted, failed hand-offs, raw receipts', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, setCost, route, send, message, finalMessage } = routingTools(() => h);
  const trace = (...args: string[]) => runCommands(h.ctx, [messageCommands], ['messages', 'trace', ...args, '--json']);
  const attemptRows = (messageId: number) =>
    h.ctx.db.kysely.selectFrom('message_attempts').selectAll().where('message_id', '=', messageId).execute();

  it('lists each failed hand-off with the carrier answer, the API key that accepted it and the raw receipt', async () => {
    // The cheap carrier throttles the first submit_sm, then fails it (system error): the router fails over.
    const cheap = await carrier({
      answer: (_s, i) => (i === 0 ? { status: 0x58 } : i === 1 ? { status: 0x08 } : 'accept'),
    });
    const dear = await carrier({ receipt: () => ({ stat: 'UNDELIV', err: '001' }) });
    await setCost(cheap.name, '525583', 100);
    await setCost(dear.name, '525583', 250);
    await route('525583', [dear.name, cheap.name], 'least-cost');
    const a = await h.createAccount(10);

    const [ref] = await send(a.apikey, '5583000001');
    const m = await finalMessage(ref);
    // The receipt may be applied before the hand-off is recorded (it came with the submit_sm_resp), and it sets
    // sent_at itself (the carrier id came with the acknowledgement): the connector is written by the hand-off record.
    await eventually(async () => (await message(ref)).carrier !== null);
    const [traced] = (await trace('--reference', ref)).messages;
    expect(traced).toMatchObject({
      reference: ref,
      status: 'undelivered',
      accepted: { by: { kind: 'api_key', key: `${a.apikey.slice(0, 8)}…`, key_revoked: false } },
      routed: { carrier: dear.name, reason: `failover from ${cheap.name}`, cost: '0.0250' },
      failed_attempts: [
        { carrier: cheap.name, code: '0x58', error: expect.stringContaining('ESME_RTHROTTLED') },
        { carrier: cheap.name, code: '0x08', error: expect.stringContaining('ESME_RSYSERR') },
      ],
      handed_over: { carrier_id: dear.smsc.submitted[0].messageId },
      receipt: { status_code: m.dlr_code, stat: 'UNDELIV', err: '001' },
    });
    expect(traced.accepted.by.key_id).toEqual(expect.any(Number));
    expect(JSON.stringify(traced)).not.toContain(a.apikey);

    // Taken at the first try: nothing is written beside the message.
    const [second] = await send(a.apikey, '5583000002');
    await eventually(async () => (await message(second)).sent_at !== null);
    expect((await message(second)).carrier).toBe(cheap.name);
    expect(await attemptRows((await message(second)).id)).toEqual([]);
    expect((await trace('--reference', second)).messages[0].failed_attempts).toEqual([]);
  });

  it('records a refusal as a failed attempt, and prints it as text', async () => {
    const refusing = await carrier({ answer: () => ({ status: 0x0b }) });
    await route('525584', [refusing.name], 'priority');
    const a = await h.createAccount(10);
    const [refused] = await send(a.apikey, '5584000001');
    await finalMessage(refused);
    const { messages } = await trace('--reference', refused);
    expect(messages[0].failed_attempts).toEqual([
      {
        at: expect.any(String),
        carrier: refusing.name,
        code: '0x0b',
        error: `${refusing.name}: ESME_RINVDSTADR (0x0b)`,
      },
    ]);
    expect(traceText({ messages })).toContain(
      `hand-off failed ${messages[0].failed_attempts[0].at} at ${refusing.name}: 0x0b ${refusing.name}: ESME_RINVDSTADR (0x0b)`,
    );
  });

  it('keeps the raw receipt of a receipt that came before the answer to its submit_sm', async () => {
    const early = await carrier({ receipt: () => ({ stat: 'UNDELIV', err: '027', beforeResponse: true }) });
    await route('525585', [early.name], 'priority');
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5585000001');
    await finalMessage(ref);
    const [m] = (await trace('--reference', ref)).messages;
    expect(m.receipt).toMatchObject({ status_code: 2, stat: 'UNDELIV', err: '027' });
  });

  it('housekeeping removes failed attempts older than MESSAGE_ATTEMPTS_KEEP_DAYS', async () => {
    const now = Date.now();
    const day = 86_400_000;
    const keep = h.ctx.config.MESSAGE_ATTEMPTS_KEEP_DAYS;
    const row = (at: number) => ({ message_id: 999_999, carrier: 'x', at, code: null, error: 'old' });
    await h.ctx.db.kysely
      .insertInto('message_attempts')
      .values([row(now - (keep + 1) * day), row(now - (keep - 1) * day)])
      .execute();
    expect(await pruneFailedAttempts(h.ctx, now)).toBe(1);
    expect((await attemptRows(999_999)).map((r) => Number(r.at))).toEqual([now - (keep - 1) * day]);
  });
});
