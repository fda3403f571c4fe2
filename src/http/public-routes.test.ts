import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';

/** The attacks on the routes that need no API key. */
describeEngines('public routes under attack', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const readToken = async (reference: string) => {
    const m = await h.ctx.db.kysely
      .selectFrom('messages')
      .select('id')
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow();
    return await h.ctx.db.kysely
      .selectFrom('read_trackings')
      .selectAll()
      .where('message_id', '=', m.id)
      .executeTakeFirstOrThrow();
  };

  it('refuses a large body on /pay/:token/complete before parsing it (413), deeply nested or not', async () => {
    const nested = `{"amount":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
    const r = await h.request('POST', '/pay/unknown-token/complete', {
      body: nested,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ success: false, code: 'body_too_large' });
    const form = await h.request('POST', '/pay/unknown-token/complete', { form: { amount: 'x'.repeat(10_000) } });
    expect(form.status).toBe(413);
    // A normal form still reaches the page.
    expect((await h.request('POST', '/pay/unknown-token/complete', { form: { amount: '20' } })).status).toBe(404);
  });

  it('stores a read-confirmation URL with CR/LF and non-Latin-1 characters normalised, and redirects to it', async () => {
    const a = await h.createAccount(10);
    const url = 'https://tienda.example/promo\r\nSet-Cookie: x=1?q=ñandú€';
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', read_confirmation: { url } },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
    const row = await readToken(r.body.references[0].reference);
    expect(row.url).toBe(new URL(url).href);
    const go = await h.get(`/r/${row.token}`);
    expect(go.status).toBe(302);
    expect(go.headers.location).toBe('https://tienda.example/promoSet-Cookie:%20x=1?q=%C3%B1and%C3%BA%E2%82%AC');
    expect(go.headers['set-cookie']).toBeUndefined();
  });

  it('redirects short links to non-Latin-1 URLs (stored percent-encoded) instead of answering 500', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Mira https://tienda.example/ñandú€ hoy', shorten_url: 1 },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
    const link = await h.ctx.db.kysely
      .selectFrom('short_links')
      .selectAll()
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(link.url).toBe('https://tienda.example/%C3%B1and%C3%BA%E2%82%AC');
    const go = await h.get(`/s/${link.code}`);
    expect(go.status).toBe(302);
    expect(go.headers.location).toBe(link.url);
  });

  it('answers a redirect, not 500, for rows stored before URLs were normalised', async () => {
    const a = await h.createAccount(10);
    await h.ctx.db.kysely
      .insertInto('short_links')
      .values({
        code: 'legacyCRLF',
        account_id: a.id,
        campaign_id: 0,
        url: 'https://a.example/x\r\ny',
        created_at: Date.now(),
        last_click_at: null,
      })
      .execute();
    await h.ctx.db.kysely
      .insertInto('short_links')
      .values({
        code: 'legacyJS',
        account_id: a.id,
        campaign_id: 0,
        url: 'javascript:alert(1)',
        created_at: Date.now(),
        last_click_at: null,
      })
      .execute();
    const go = await h.get('/s/legacyCRLF');
    expect(go.status).toBe(302);
    expect(go.headers.location).toBe('https://a.example/xy');
    expect((await h.get('/s/legacyJS')).body).toMatchObject({ status: 404, code: 'short_link_01' });
  });

  it('does not count HEAD requests as reads or clicks', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', read_confirmation: { url: 'https://a.example/' } },
      a.apikey,
    );
    const { token } = await readToken(r.body.references[0].reference);
    expect((await h.request('HEAD', `/r/${token}`)).status).toBe(302);
    expect((await h.request('HEAD', `/r/${token}`)).status).toBe(302);
    let row = await h.ctx.db.kysely
      .selectFrom('read_trackings')
      .selectAll()
      .where('token', '=', token)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ reads: 0, first_read_at: null });
    expect((await h.get(`/r/${token}`)).status).toBe(302);
    row = await h.ctx.db.kysely
      .selectFrom('read_trackings')
      .selectAll()
      .where('token', '=', token)
      .executeTakeFirstOrThrow();
    expect(row.reads).toBe(1);

    const s = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Mira https://a.example/p', shorten_url: 1 },
      a.apikey,
    );
    expect(s.body.code).toBe('sms_11');
    const link =
      (await h.ctx.db.kysely
        .selectFrom('short_links')
        .selectAll()
        .where('campaign_id', '=', Number(s.body.campaignId ?? -1))
        .executeTakeFirst()) ??
      (await h.ctx.db.kysely
        .selectFrom('short_links')
        .selectAll()
        .where('account_id', '=', a.id)
        .executeTakeFirstOrThrow());
    expect((await h.request('HEAD', `/s/${link.code}`)).status).toBe(302);
    expect(
      (
        await h.ctx.db.kysely
          .selectFrom('short_links')
          .select('clicks')
          .where('code', '=', link.code)
          .executeTakeFirstOrThrow()
      ).clicks,
    ).toBe(0);
  });

  it('answers router-level errors in the JSON envelope', async () => {
    const bad = await h.get('/s/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, message: expect.any(String), status: 400, code: 'bad_url' });
    const long = await h.get(`/r/${'a'.repeat(500)}`);
    expect(long.status).toBe(414);
    expect(long.body).toEqual({ success: false, message: expect.any(String), status: 414, code: 'url_too_long' });
    expect((await h.get('/credits/consult%')).body.code).toBe('bad_url');
  });
});

describe('/metrics behind a bearer token', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { worker: false, env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
  });
  afterAll(() => h.close());

  it('refuses a scrape without the token and serves one with it', async () => {
    const none = await h.get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ success: false, code: 'metrics_unauthorized' });
    expect(
      (await h.request('GET', '/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
    const ok = await h.request('GET', '/metrics', { headers: { authorization: 'Bearer metrics-token-0123456789' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('mensajero_http_requests_total');
  });
});
