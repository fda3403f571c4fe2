import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import type { CarrierIds } from './inbound-ports.js';
import { carrierSink } from './carrier-sink.js';
import { recordDurably } from './outcomes.js';
import { applyDeliveryReports } from './delivery.js';

const smpp: CarrierIds = { kind: 'smpp', normalise: (id) => id.toLowerCase(), forms: (id) => [id.toLowerCase()] };

/**
 * A message's carrier ids are recorded once: by the connector's sink as the carrier acknowledges (the id book and
 * the message's carrier_id together), or by the hand-off's record for a driver with no sink; a receipt that
 * overtook the hand-off is counted once, when the record gives the message its connector.
 */
describeEngines('carrier ids recorded once', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const sendOne = async (number: string) => {
    const a = await h.createAccount(10);
    const r = await h.post('/sms/send', { numbers: number, message: 'Hola' }, a.apikey);
    return h.ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'account_id', 'reference', 'number', 'price_units', 'extra_params'])
      .where('reference', '=', r.body.references[0].reference)
      .executeTakeFirstOrThrow();
  };
  const message = (id: number) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const counts = (carrier: string) =>
    h.ctx.db.kysely
      .selectFrom('carrier_receipt_counts')
      .select(['delivered', 'failed'])
      .where('carrier', '=', carrier)
      .execute();

  it('writes the first id with the id book as the carrier acknowledges; a receipt that came first counts once', async () => {
    const row = await sendOne('5512340001');
    const sink = carrierSink(h.ctx, smpp);
    await sink.accepted('ids-smpp', [{ messageId: row.id, carrierIds: ['AB01', 'AB02'] }]);
    expect(await message(row.id)).toMatchObject({ stage: 0, carrier: null, carrier_id: 'AB01' });
    const kept = await h.ctx.db.kysely.selectFrom('smpp_ids').select('carrier_id').where('message_id', '=', row.id);
    expect((await kept.orderBy('id').execute()).map((r) => r.carrier_id)).toEqual(['ab01', 'ab02']);

    // The receipt overtakes the hand-off's record: applied, not counted yet (no connector on the message).
    await sink.receipts('ids-smpp', [{ carrierId: 'ab02', code: 0, at: Date.now() }]);
    expect(await message(row.id)).toMatchObject({ stage: 2, carrier: null });
    expect(await counts('ids-smpp')).toEqual([]);

    const outcome = { ok: true as const, carrierId: 'AB01', idsRecorded: true, parts: 2 };
    await recordDurably(h.ctx, 'ids-smpp', [row], [outcome], { token: 'x' });
    expect(await message(row.id)).toMatchObject({ stage: 2, carrier: 'ids-smpp', carrier_id: 'AB01', parts: 2 });
    expect(await counts('ids-smpp')).toEqual([{ delivered: 1, failed: 0 }]);
    // A second record of the same hand-off (a takeover's) changes and counts nothing.
    await recordDurably(h.ctx, 'other', [row], [{ ...outcome, carrierId: 'ZZ' }], { token: 'x' });
    expect(await message(row.id)).toMatchObject({ carrier: 'ids-smpp', carrier_id: 'AB01' });
    expect(await counts('ids-smpp')).toEqual([{ delivered: 1, failed: 0 }]);
  });

  it('records the hand-off of a message its report closed first though the carrier named it with no id (the simulator)', async () => {
    const row = await sendOne('5512340004');
    const unsent = await sendOne('5512340005');
    // The simulator's report job matches by message id and may run before the hand-off's record commits.
    await applyDeliveryReports(h.ctx, [{ messageId: row.id, code: 0, at: Date.now() }]);
    await h.ctx.db.kysely
      .updateTable('messages')
      .set({ stage: 2, status: 'undelivered' })
      .where('id', '=', unsent.id)
      .execute();
    expect(await message(row.id)).toMatchObject({ stage: 2, carrier: null });
    expect(await counts('ids-plain')).toEqual([]);

    await recordDurably(h.ctx, 'ids-plain', [row, unsent], [{ ok: true }, { ok: true }], { token: 'x' });
    expect(await message(row.id)).toMatchObject({ stage: 2, status: 'delivered', carrier: 'ids-plain' });
    expect(await counts('ids-plain')).toEqual([{ delivered: 1, failed: 0 }]);
    // Closed unsent meanwhile (no receipt): left as it was.
    expect(await message(unsent.id)).toMatchObject({ stage: 2, status: 'undelivered', dlr_code: null, carrier: null });
  });

  it('counts once every receipt that came first, across the groups of one record', async () => {
    // One message the carrier named, one it did not: two groups of the record, both overtaken by their receipts.
    const [named, plain] = [await sendOne('5512340006'), await sendOne('5512340007')];
    await applyDeliveryReports(h.ctx, [
      { messageId: named.id, code: 0, at: Date.now() },
      { messageId: plain.id, code: 5, at: Date.now() },
    ]);
    expect(await counts('ids-groups')).toEqual([]);
    await recordDurably(h.ctx, 'ids-groups', [named, plain], [{ ok: true, carrierId: 'g-1' }, { ok: true }], {
      token: 'x',
    });
    expect(await message(named.id)).toMatchObject({ stage: 2, carrier: 'ids-groups' });
    expect(await message(plain.id)).toMatchObject({ stage: 2, carrier: 'ids-groups' });
    expect(await counts('ids-groups')).toEqual([{ delivered: 1, failed: 1 }]);
  });

  it("records a driver's ids on the hand-off when no sink recorded them", async () => {
    const [one, two] = [await sendOne('5512340002'), await sendOne('5512340003')];
    await recordDurably(
      h.ctx,
      'ids-module',
      [one, two],
      [
        { ok: true, carrierId: 'm-1' },
        { ok: true, carrierId: 'm-2' },
      ],
      { token: 'x' },
    );
    expect(await message(one.id)).toMatchObject({ stage: 1, status: 'sent', carrier: 'ids-module', carrier_id: 'm-1' });
    expect(await message(two.id)).toMatchObject({ stage: 1, status: 'sent', carrier: 'ids-module', carrier_id: 'm-2' });
  });
});
