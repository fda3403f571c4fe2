import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, secondProcess, startHarness, type Harness } from '../../test/helpers/harness.js';
import { toUnits } from '../accounts/credits.js';
import { formatLocalDate } from '../lib/time.js';
import { setDailySpendLimit } from './spend.js';

type Service = Awaited<ReturnType<typeof secondProcess>>;

/**
 * A family's daily spending limit, as a stolen API key meets it: parallel sends through two services sharing the
 * database (two processes), from the top-level account and a sub-account, never spend past it.
 */
describeEngines('daily spending limit', (engine) => {
  let h: Harness;
  let other: Service;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMIT_PER_SECOND: '100000', SPEND_SPIKE_MIN_CREDITS: '5' } });
    other = await secondProcess(h);
  });
  afterAll(async () => {
    await other?.stop();
    await h?.close();
  });

  let serial = 0;
  const phone = () => `55${String(++serial).padStart(8, '0')}`;
  const send = (apikey: string, process: number) => {
    const body = { numbers: phone(), message: 'Hola' };
    return process % 2 === 0
      ? h.post('/sms/send', body, apikey)
      : other.app
          .inject({ method: 'POST', url: '/sms/send', headers: { apikey }, payload: body })
          .then((r) => ({ status: r.statusCode, body: JSON.parse(r.body) }));
  };
  const credit = async (apikey: string) => (await h.post('/credits/consult', {}, apikey)).body.credit as number;
  const spentToday = async (root: number) =>
    Number(
      (
        await h.ctx.db.kysely
          .selectFrom('spend_days')
          .select('units')
          .where('root_account_id', '=', root)
          .where('day', '=', formatLocalDate(Date.now()))
          .executeTakeFirst()
      )?.units ?? 0,
    );
  const episodes = (type: 'spend_limit' | 'spend_spike') =>
    h.ctx.db.kysely.selectFrom('alert_episodes').selectAll().where('type', '=', type).execute();

  let n = 0;
  async function subOf(parentKey: string, credits: number): Promise<string> {
    const email = `spend-sub${++n}@example.com`;
    const r = await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parentKey);
    expect(r.body.code).toBe('subaccount_01');
    await h.post('/manager/subaccount/credits/manage', { email, type: 1, credits }, parentKey);
    return r.body.apikey;
  }

  it('racing sends of a family through two processes stop at the limit: refused with sms_44, nothing charged', async () => {
    const parent = await h.createAccount(200);
    const child = await subOf(parent.apikey, 50);
    await setDailySpendLimit(h.ctx.db.kysely, parent.id, toUnits(10));
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(i % 3 === 0 ? child : parent.apikey, i)),
    );
    const accepted = replies.filter((r) => r.body.code === 'sms_11');
    const refused = replies.filter((r) => r.status === 402 && r.body.code === 'sms_44');
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(30);
    expect(refused[0].body.message).toBe('Daily spending limit reached: nothing was sent and nothing was charged');
    expect((await credit(parent.apikey)) + (await credit(child))).toBe(200 - 10);
    expect(await spentToday(parent.id)).toBe(toUnits(10));
    // The top-level account hears of it once (its webhook event), and so does the operator.
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'spend_limit')
      .where('account_id', '=', parent.id)
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload)).toMatchObject({ type: 'spend_limit', spent: '10', limit: '10' });
    const alerts = (await episodes('spend_limit')).filter((e) => JSON.parse(e.details).account === parent.email);
    expect(alerts).toHaveLength(1);
    expect(JSON.parse(alerts[0].details)).toMatchObject({ type: 'spend_limit', spent: '10', limit: '10' });
    // A verification code is refused the same way, with the OTP API's own error.
    const otp = await h.post('/v2/otp', { phone_number: phone(), country_code: '52', company: 'Acme' }, child);
    expect(otp.status).toBe(402);
    expect(otp.body).toMatchObject({ error: 'otp_spend_limit', code: 'sms_44' });
    // Removing the limit lets the family send again.
    await setDailySpendLimit(h.ctx.db.kysely, parent.id, null);
    expect((await send(child, 1)).body.code).toBe('sms_11');
  });

  it('a family without a limit sends as before, and a send larger than the whole limit is refused', async () => {
    const free = await h.createAccount(20);
    for (let i = 0; i < 4; i++) expect((await send(free.apikey, i)).body.code).toBe('sms_11');
    const capped = await h.createAccount(20);
    await setDailySpendLimit(h.ctx.db.kysely, capped.id, toUnits(2));
    const numbers = [phone(), phone(), phone()].join(',');
    const r = await h.post('/sms/send', { numbers, message: 'Hola' }, capped.apikey);
    expect([r.status, r.body.code]).toEqual([402, 'sms_44']);
    expect(await credit(capped.apikey)).toBe(20);
    expect(await spentToday(capped.id)).toBe(0);
  });

  it('spend_spike: an hour past 10 times the usual hourly spend alerts the operator once, refusing nothing', async () => {
    const a = await h.createAccount(100);
    // The 7 days before: 24 credits a day, 1 credit an hour on average.
    const today = Date.now();
    await h.ctx.db.kysely
      .insertInto('spend_days')
      .values(
        Array.from({ length: 7 }, (_, i) => ({
          root_account_id: a.id,
          day: formatLocalDate(today - (i + 1) * 86_400_000),
          units: toUnits(24),
          hour: 0,
          hour_units: 0,
        })),
      )
      .execute();
    const mine = async () => (await episodes('spend_spike')).filter((e) => JSON.parse(e.details).account === a.email);
    for (let i = 0; i < 10; i++) expect((await send(a.apikey, i)).body.code).toBe('sms_11');
    expect(await mine()).toHaveLength(0);
    const more = await Promise.all(Array.from({ length: 6 }, (_, i) => send(a.apikey, i)));
    expect(more.every((r) => r.body.code === 'sms_11')).toBe(true);
    const spikes = await mine();
    expect(spikes).toHaveLength(1);
    expect(JSON.parse(spikes[0].details)).toMatchObject({ type: 'spend_spike', usual_hour: '1' });
  });
});
