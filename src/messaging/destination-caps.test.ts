import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, secondProcess, startHarness, type Harness } from '../../test/helpers/harness.js';
import { saveSendRules, type SendRulesChanges } from './send-rules.js';

/** Rules reach the process's cache within CARRIER_POLL_MS: fast here. */
const ENV = { CARRIER_POLL_MS: '50', DESTINATION_MAX_PER_NUMBER_HOUR: '20', DESTINATION_MAX_SAME_TEXT_HOUR: '6' };
const settle = () => new Promise((resolve) => setTimeout(resolve, 120));

/**
 * The destination caps as an attacker meets them (one number flooded from one account, in parallel, from two
 * processes, from a family's sub-account) while the same account's honest traffic to other numbers passes.
 */
describeEngines('destination caps', (engine) => {
  let h: Harness;
  let other: Awaited<ReturnType<typeof secondProcess>>;
  beforeAll(async () => {
    h = await startHarness(engine, { env: ENV });
    other = await secondProcess(h);
  });
  afterAll(async () => {
    await other?.stop();
    await h?.close();
  });

  const rules = async (accountId: number, changes: SendRulesChanges) => {
    await saveSendRules(h.ctx.db.kysely, accountId, changes);
    await settle();
  };
  const credits = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );
  const sms = (apikey: string, numbers: string, message: string, extra: Record<string, unknown> = {}) =>
    h.post('/sms/send', { numbers, message, ...extra }, apikey);

  it('refuses the message past the per-number cap with 429 sms_45, charging nothing; other numbers pass', async () => {
    const a = await h.createAccount(100);
    await rules(a.id, { max_per_number_hour: 3 });
    for (let i = 1; i <= 3; i++) expect((await sms(a.apikey, '5512370001', `Aviso ${i}`)).status).toBe(200);
    const before = await credits(a.id);
    const refused = await sms(a.apikey, '5512370001', 'Aviso 4');
    expect([refused.status, refused.body.code, refused.body.number]).toEqual([429, 'sms_45', '525512370001']);
    expect(await credits(a.id)).toBe(before);
    // A request with the capped number among others is refused whole; the others alone pass.
    expect((await sms(a.apikey, '5512370002,5512370001', 'Hola')).body.code).toBe('sms_45');
    expect((await sms(a.apikey, '5512370002,5512370003', 'Hola')).status).toBe(200);
    const sent = await h.ctx.db.kysely
      .selectFrom('messages')
      .select('number')
      .where('account_id', '=', a.id)
      .where('number', '=', '525512370001')
      .execute();
    expect(sent).toHaveLength(3);
  });

  it('caps the same text sooner than different texts (the deployment default is 6 of one text)', async () => {
    const a = await h.createAccount(100);
    for (let i = 0; i < 6; i++) expect((await sms(a.apikey, '5512370011', 'Gana un premio')).status).toBe(200);
    expect((await sms(a.apikey, '5512370011', 'Gana un premio')).body.code).toBe('sms_45');
    expect((await sms(a.apikey, '5512370011', 'Tu pedido salió')).status).toBe(200);
    await rules(a.id, { max_same_text_hour: 8 });
    expect((await sms(a.apikey, '5512370011', 'Gana un premio')).status).toBe(200);
  });

  it('parallel sends from two processes never pass the cap together', async () => {
    const a = await h.createAccount(100);
    await rules(a.id, { max_per_number_hour: 4 });
    const fromOther = (i: number) =>
      other.app.inject({
        method: 'POST',
        url: '/sms/send',
        headers: { apikey: a.apikey },
        payload: { numbers: '5512370021', message: `Otro ${i}` },
      });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? sms(a.apikey, '5512370021', `Uno ${i}`).then((r) => r.status)
          : fromOther(i).then((r) => r.statusCode),
      ),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(4);
    expect(answers.filter((s) => s === 429)).toHaveLength(8);
    const row = await h.ctx.db.kysely
      .selectFrom('destination_counts')
      .select('sent')
      .where('family_id', '=', a.id)
      .where('number', '=', '525512370021')
      .where('text_key', '=', '')
      .executeTakeFirstOrThrow();
    expect(Number(row.sent)).toBe(4);
  });

  it("counts a family together: a sub-account does not add to its parent's cap", async () => {
    const parent = await h.createAccount(100);
    await rules(parent.id, { max_per_number_hour: 2 });
    const email = 'caps-sub@example.com';
    const made = await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parent.apikey);
    expect(made.body.code).toBe('subaccount_01');
    const moved = await h.post('/manager/subaccount/credits/manage', { email, type: 1, credits: 10 }, parent.apikey);
    expect(moved.body.code).toBe('subaccount_01');
    const sub = { apikey: made.body.apikey as string };
    expect((await sms(parent.apikey, '5512370031', 'Uno')).status).toBe(200);
    expect((await sms(sub.apikey, '5512370031', 'Dos')).status).toBe(200);
    expect((await sms(sub.apikey, '5512370031', 'Tres')).body.code).toBe('sms_45');
    expect((await sms(parent.apikey, '5512370031', 'Cuatro')).body.code).toBe('sms_45');
  });

  it('counts a scheduled send in the hour it goes out in; sandbox sends are not counted', async () => {
    const a = await h.createAccount(100);
    await rules(a.id, { max_per_number_hour: 1 });
    const later = { date: '2099-01-01 10:00:00' };
    expect((await sms(a.apikey, '5512370041', 'Recordatorio', later)).status).toBe(200);
    expect((await sms(a.apikey, '5512370041', 'Otro recordatorio', later)).body.code).toBe('sms_45');
    for (let i = 0; i < 3; i++) expect((await sms(a.apikey, '5512370041', 'Prueba', { sandbox: 1 })).status).toBe(200);
    expect((await sms(a.apikey, '5512370041', 'Ahora')).status).toBe(200);
    expect((await sms(a.apikey, '5512370041', 'Ahora otra vez')).body.code).toBe('sms_45');
  });

  it("an account may raise its own caps; default returns it to the deployment's", async () => {
    const a = await h.createAccount(100);
    await rules(a.id, { max_per_number_hour: 30, max_same_text_hour: 30 });
    for (let i = 0; i < 25; i++) expect((await sms(a.apikey, '5512370051', 'Mismo texto')).status).toBe(200);
    await rules(a.id, { max_per_number_hour: null, max_same_text_hour: null });
    expect((await sms(a.apikey, '5512370051', 'Mismo texto')).body.code).toBe('sms_45');
  });
});
