import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { RecordingCarrier } from '../../test/helpers/recording-carrier.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import type { OutboundMessage, SubmitOutcome } from '../messaging/ports.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { Pdu, SmppSession } from '../smpp-protocol/pdu.js';
import { traceMessages } from '../features/messages/service.js';
import { traceSteps } from '../features/messages/steps.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A carrier whose submit() holds every batch until the test releases it: a hand-off in progress, for as long as needed. */
class HeldCarrier extends RecordingCarrier {
  private release = deferred();
  private entered = deferred();

  constructor(maxBatch = 50) {
    super(['sms'], 100_000, maxBatch);
  }

  override async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    const outcomes = await super.submit(batch);
    this.entered.resolve();
    await this.release.promise;
    return outcomes;
  }

  /** Resolves once a batch is at the carrier, its answer held. */
  reached(): Promise<void> {
    return this.entered.promise;
  }

  open(): void {
    this.release.resolve();
  }
}

/** Scheduled one second ahead (SMPP relative time). */
const inASecond = '000000000001000R';
const text = { short_message: Buffer.from(gsmSeptets('hola')), destination_addr: '525512345678', dest_addr_ton: 1 };

/**
 * A scheduled message claimed for its hand-off can no longer be cancelled:
 * the cancel and the claim decide by one conditional write each, so a
 * message is either handed to the carrier and charged, or cancelled and
 * refunded, never both and never neither.
 */
describeEngines('cancel_sm racing the hand-off of a scheduled message', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    // Every message goes to one number with one text: the destination caps would refuse all but the first few.
    h = await startSmppHarness(engine, {
      env: { DESTINATION_MAX_PER_NUMBER_HOUR: '0', DESTINATION_MAX_SAME_TEXT_HOUR: '0' },
    });
  });
  afterAll(() => h.close());

  const credits = async (accountId: number) =>
    Number(
      (
        await h.ctx.db.kysely
          .selectFrom('accounts')
          .select('credits')
          .where('id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).credits,
    );
  const messages = (accountId: number) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'reference', 'stage', 'status', 'error', 'sent_at', 'price_units', 'refunded'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();

  it('answers 0x11 while the carrier holds the message, keeps the charge, and the trace shows only the hand-off', async () => {
    const held = new HeldCarrier();
    h.ctx.carriers.use(held);
    const c = await smppCustomer(h, 10);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const full = await credits(c.id);
    const sent = await ask(session, 'submit_sm', { ...text, schedule_delivery_time: inASecond });
    expect(sent.command_status).toBe(0);
    const charged = await credits(c.id);
    expect(charged).toBeLessThan(full);

    try {
      await held.reached();
      expect((await ask(session, 'cancel_sm', { message_id: sent.message_id })).command_status).toBe(0x11);
      expect(await credits(c.id)).toBe(charged);
    } finally {
      held.open(); // a failed assertion must not leave the dispatcher waiting
    }

    await eventually(async () => (await messages(c.id))[0].stage === 1);
    expect((await messages(c.id))[0]).toMatchObject({ stage: 1, status: 'sent' });
    expect(held.handOffs.size).toBe(1);
    expect(await credits(c.id)).toBe(charged);
    expect((await ask(session, 'cancel_sm', { message_id: sent.message_id })).command_status).toBe(0x11);
    const [traced] = (await traceMessages(h.ctx.db.kysely, h.ctx.secrets.keyEncryption, { reference: sent.message_id }))
      .messages;
    const steps = traceSteps(traced).join('\n');
    expect(steps).toContain('handed over');
    expect(steps).not.toContain('cancelled by the customer');
    expect(traced.refund).toBeNull();
  });

  it('with cancels racing the claims, each message is either handed over and charged or cancelled and refunded', async () => {
    // 20 a second in batches of 4, each held 150 ms by the carrier: the hand-off of the 40 lasts about 2 s.
    const paced = new RecordingCarrier(['sms'], 20, 4, 150);
    h.ctx.carriers.use(paced);
    const c = await smppCustomer(h, 100);
    const sessions: SmppSession[] = [];
    for (let i = 0; i < 4; i++) sessions.push((await bindClient(h.smppPort, c.systemId, c.password)).session);
    const full = await credits(c.id);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push(
        String((await ask(sessions[i % 4], 'submit_sm', { ...text, schedule_delivery_time: inASecond })).message_id),
      );

    await eventually(async () => paced.handOffs.size > 0);
    // From both ends inwards: the first scheduled are being handed over, the last are not claimed yet.
    const order = ids.flatMap((_, k) => (k % 2 === 0 ? [ids[ids.length - 1 - k / 2]] : [ids[(k - 1) / 2]]));
    const answers = new Map<string, number>();
    await Promise.all(
      order.map(async (id, k) => {
        await new Promise((r) => setTimeout(r, k * 20));
        const answer: Pdu = await ask(sessions[k % 4], 'cancel_sm', { message_id: id });
        answers.set(id, answer.command_status);
      }),
    );

    await eventually(async () => (await messages(c.id)).every((m) => m.stage !== 0));
    const rows = await messages(c.id);
    let kept = 0;
    for (const m of rows) {
      const handed = paced.handOffs.get(m.id) ?? 0;
      const cancelled = answers.get(m.reference) === 0;
      expect({ reference: m.reference, handed, cancelled }).toEqual({
        reference: m.reference,
        handed: cancelled ? 0 : 1,
        cancelled: m.error === 'cancelled by the customer',
      });
      // `refunded` is what the margins report leaves out of the revenue.
      if (cancelled) expect(m).toMatchObject({ stage: 2, sent_at: null, refunded: 1 });
      else {
        expect(m).toMatchObject({ stage: 1, status: 'sent', refunded: 0 });
        kept += m.price_units;
      }
    }
    expect(await credits(c.id)).toBe(full - kept);
    const outcomes = [...answers.values()];
    expect(outcomes.filter((s) => s === 0).length).toBeGreaterThan(0);
    expect(outcomes.filter((s) => s === 0x11).length).toBeGreaterThan(0);
  });

  it('a submit_multi whose first destination is being handed over cancels only the others', async () => {
    const held = new HeldCarrier(1);
    h.ctx.carriers.use(held);
    const c = await smppCustomer(h, 10);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const full = await credits(c.id);
    const dest_address = ['525512345678', '525587654321'].map((n) => ({ dest_addr_ton: 1, destination_addr: n }));
    const sent = await ask(session, 'submit_multi', {
      dest_address,
      short_message: Buffer.from(gsmSeptets('a todos')),
      schedule_delivery_time: inASecond,
    });
    expect(sent.command_status).toBe(0);
    try {
      await held.reached();
      expect((await ask(session, 'cancel_sm', { message_id: sent.message_id })).command_status).toBe(0);
    } finally {
      held.open();
    }
    await eventually(async () => (await messages(c.id)).every((m) => m.stage !== 0));
    const [first, second] = await messages(c.id);
    expect(first).toMatchObject({ stage: 1, status: 'sent' });
    expect(second).toMatchObject({ stage: 2, error: 'cancelled by the customer', sent_at: null });
    expect([...held.handOffs.keys()]).toEqual([first.id]);
    expect(await credits(c.id)).toBe(full - first.price_units);
    expect((await ask(session, 'cancel_sm', { message_id: sent.message_id })).command_status).toBe(0x11);
    const traced = await traceMessages(h.ctx.db.kysely, h.ctx.secrets.keyEncryption, {
      number: '525587654321',
      from: null,
      to: null,
    });
    const steps = traceSteps(traced.messages.find((m) => m.reference === second.reference)!).join('\n');
    expect(steps).toContain('cancelled by the customer');
    expect(steps).toContain('refunded');
    expect(steps).not.toContain('handed over');
  });
});
