import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { formatLocalDate } from '../../lib/time.js';
import { encodeMessage } from '../../smpp-protocol/encoding.js';
import { idBook, storeReceipts } from '../../messaging/receipts.js';
import { InboundHandler } from './inbound.js';
import { carrierSink } from '../../messaging/carrier-sink.js';
import { smppIds } from '../kinds.js';
import type { CarrierSink } from '../adapter.js';
import type { AppContext } from '../../context.js';
import { parseSmppSettings } from './settings.js';
import { emptyStats } from '../status.js';

const DAY = 86_400_000;
/** The sink an SMPP connector gets (no request is refused here). */
const sinkOf = (ctx: AppContext): CarrierSink => ({ ...carrierSink(ctx, smppIds), rejected: async () => {} });

describeEngines('SMPP carriers end to end', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, send, message } = smppTools(() => h);

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

  it('applies a receipt delivered twice at once, and records a reply whose last part comes twice at once, exactly once', async () => {
    const { smsc, name } = await carrier({}, [], { prefix: '525525' });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5525000001');
    await eventually(async () => (await message(ref)).stage === 1);
    const id = smsc.submitted[0].messageId;
    const decimal = BigInt(`0x${id}`).toString(10);
    await Promise.all([
      storeReceipts(h.ctx, idBook(smppIds), name, [{ carrierId: id, code: 0, at: Date.now() }]),
      storeReceipts(h.ctx, idBook(smppIds), name, [{ carrierId: decimal, code: 1, at: Date.now() }]),
    ]);
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('reference', '=', ref)
      .where('type', '=', 'confirmation')
      .execute();
    expect(events).toHaveLength(1);
    const inbound = new InboundHandler(
      sinkOf(h.ctx),
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
        sinkOf(h.ctx),
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
});
