import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { freshPhone, otpClient } from '../features/otp/testing.js';
import { addFilter } from '../features/filters/service.js';
import { listAudit } from '../audit/service.js';
import { saveSendRules } from './send-rules.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 120));

/**
 * Content filters, countries per account and registered senders as a phishing sender meets them over HTTP: the
 * attack refused (not charged, recorded) or flagged, honest texts and other accounts untouched.
 */
describeEngines('content filters, countries and senders of a family', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { CARRIER_POLL_MS: '50' } });
  });
  afterAll(() => h.close());

  const credits = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );
  const sms = (apikey: string, message: string, extra: Record<string, unknown> = {}) =>
    h.post('/sms/send', { numbers: '5512380001', message, ...extra }, apikey);
  const matches = async (action: string) =>
    (await listAudit(h.ctx.db.kysely, { since: 0, actor: 'filters' })).filter((e) => e.action === action);

  it('blocks a phishing text whatever its accents, width, zero-width characters and case: sms_46, nothing charged', async () => {
    const a = await h.createAccount(10);
    await addFilter(h.ctx.db, { action: 'block', account: null, word: 'cuenta bloqueada' });
    await addFilter(h.ctx.db, { action: 'block', account: null, domain: 'bbva-mx.example' });
    await settle();
    const before = await credits(a.id);
    for (const text of [
      'Su CUENTA fue BLOQUEADA? No: su Cuénta Bloqueáda, llame ya',
      'Su ｃｕｅｎｔａ bloque\u200bada: llame',
      'Ingrese a https://login.BBVA-MX.example/acceso',
      'Ingrese a bbva-mx.example…',
    ]) {
      const r = await sms(a.apikey, text);
      expect([text, r.status, r.body.code]).toEqual([text, 400, 'sms_46']);
    }
    expect(await credits(a.id)).toBe(before);
    // Honest texts: the words apart, inside other words, or another domain.
    for (const text of ['Su cuenta está al día', 'Desbloqueada su cuenta? no', 'Visite bbva-mx.example.org.mx hoy'])
      expect((await sms(a.apikey, text)).status).toBe(200);
    const blocked = await matches('filters.block');
    expect(blocked.length).toBeGreaterThanOrEqual(4);
    expect(blocked[0]).toMatchObject({ actor: 'filters', target: `account:${a.id}` });
    const metrics = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/mensajero_content_filter_matches_total\{action="block"\} [4-9]/);
    expect(metrics).toMatch(/mensajero_abuse_refusals_total\{control="content_blocked"\} [4-9]/);
  });

  it("flags without refusing, and an account's filter covers its family only", async () => {
    const a = await h.createAccount(10);
    const b = await h.createAccount(10);
    await addFilter(h.ctx.db, { action: 'flag', account: { id: a.id, email: a.email }, word: 'premio' });
    await settle();
    const r = await sms(a.apikey, 'Ganaste un PREMIO');
    expect(r.body).toMatchObject({ success: true, code: 'sms_11' });
    const flagged = await matches('filters.flag');
    expect(flagged[0]).toMatchObject({ target: `account:${a.id}` });
    expect(flagged[0].detail).toMatchObject({ account_id: a.id, recipients: 1, text: 'Ganaste un PREMIO' });
    expect((await sms(b.apikey, 'Ganaste un premio')).status).toBe(200);
    expect((await matches('filters.flag')).length).toBe(flagged.length);
  });

  it('narrows the countries of every channel to the family list, OTP codes included', async () => {
    const a = await h.createAccount(10);
    await saveSendRules(h.ctx.db.kysely, a.id, { countries: '52' });
    await settle();
    const us = await h.post('/sms/send', { numbers: '+14155550100', message: 'Hola' }, a.apikey);
    expect([us.status, us.body.code]).toEqual([400, 'sms_18']);
    expect((await sms(a.apikey, 'Hola')).status).toBe(200);
    const code = await otpClient(h, a.apikey, '4155550100', '1').send();
    expect([code.status, code.body.error]).toEqual([403, 'otp_country_blocked']);
    expect(JSON.stringify(code.body)).toMatch(/accounts set --countries/);
    expect((await otpClient(h, a.apikey, freshPhone()).send()).status).toBe(201);
    // Another account keeps the deployment's list.
    const b = await h.createAccount(10);
    expect((await h.post('/sms/send', { numbers: '+14155550100', message: 'Hola' }, b.apikey)).status).toBe(200);
  });

  it('with registered senders only, an unregistered sender is refused (sms_47) instead of the default sender', async () => {
    const a = await h.createAccount(10);
    await h.ctx.db.kysely
      .insertInto('senders')
      .values({ account_id: a.id, name: 'MiTienda', rcs: 0, created_at: Date.now() })
      .execute();
    expect((await sms(a.apikey, 'Hola', { sender: 'OtroBanco' })).status).toBe(200);
    await saveSendRules(h.ctx.db.kysely, a.id, { senders_registered: 1 });
    await settle();
    const before = await credits(a.id);
    for (const sender of ['OtroBanco', '5512345678', 'UnNombreMuyLargo']) {
      const r = await sms(a.apikey, 'Hola', { sender });
      expect([sender, r.status, r.body.code]).toEqual([sender, 400, 'sms_47']);
    }
    expect(await credits(a.id)).toBe(before);
    expect((await sms(a.apikey, 'Hola', { sender: 'MiTienda' })).status).toBe(200);
    expect((await sms(a.apikey, 'Hola')).status).toBe(200);
  });
});
