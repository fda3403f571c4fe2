import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { formatLocal, formatLocalDate } from '../../lib/time.js';

describeEngines('POST /campaigns and GET /campaigns', (engine) => {
  let h: Harness;
  // The worker starts later: until then a send stays queued ("sending").
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const DAY = 86_400_000;

  it('lists the campaigns newest first with id, name, create_date, type and status, through JSON, form and query', async () => {
    const a = await h.createAccount(100);
    const other = await h.createAccount(100);
    const first = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'uno', name: 'Primera', showCampaignId: true },
      a.apikey,
    );
    const later = formatLocal(Date.now() + 3 * DAY);
    const scheduled = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'dos', name: 'Programada', date: later, showCampaignId: true },
      a.apikey,
    );
    await h.post('/sms/send', { numbers: '5512345678', message: 'tres', name: 'Prueba', sandbox: 1 }, a.apikey);
    await h.post('/v2/otp', { phone_number: '5512345678', country_code: '52', company: 'Acme' }, a.apikey);
    await h.post('/sms/send', { numbers: '5512345678', message: 'ajena' }, other.apikey);

    const r = await h.request('POST', '/campaigns', { apikey: a.apikey, form: { source: 'mcp' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 200, code: 'campaigns_01' });
    expect(r.body.campaigns).toEqual([
      {
        id: scheduled.body.campaignId,
        name: 'Programada',
        create_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        type: 'sms',
        status: 'scheduled',
      },
      { id: first.body.campaignId, name: 'Primera', create_date: expect.any(String), type: 'sms', status: 'sending' },
    ]);
    // The id is what /reports/details takes.
    expect((await h.post('/reports/details', { campaign_id: r.body.campaigns[1].id }, a.apikey)).body.code).toBe(
      'details_01',
    );

    const sandbox = await h.get('/campaigns?sandbox=1', a.apikey);
    expect(sandbox.body.campaigns).toMatchObject([{ name: 'Prueba', status: 'finished' }]);
    expect(
      (await h.post('/campaigns', { limit: 1 }, a.apikey)).body.campaigns.map((c: { name: string }) => c.name),
    ).toEqual(['Programada']);
    expect((await h.post('/campaigns', { limit: '1', sandbox: '0' }, a.apikey)).body.campaigns).toHaveLength(1);

    h.ctx.worker.start();
    const done = await eventually(async () => {
      const list = (await h.post('/campaigns', {}, a.apikey)).body.campaigns;
      return list[1].status === 'finished' ? list : null;
    }, 15_000);
    expect(done[0].status).toBe('scheduled');
  });

  it('filters by start_date and end_date as dates or dates with times, in Mexico City time', async () => {
    const a = await h.createAccount(10);
    await h.post('/sms/send', { numbers: '5512345678', message: 'hoy', name: 'Hoy' }, a.apikey);
    const today = formatLocalDate(Date.now());
    const yesterday = formatLocalDate(Date.now() - DAY);
    const tomorrow = formatLocalDate(Date.now() + DAY);
    const names = async (q: Record<string, string>) =>
      (await h.request('POST', '/campaigns', { apikey: a.apikey, form: q })).body.campaigns.map(
        (c: { name: string }) => c.name,
      );
    expect(await names({ start_date: today, end_date: today })).toEqual(['Hoy']);
    expect(await names({ end_date: yesterday })).toEqual([]);
    expect(await names({ start_date: tomorrow })).toEqual([]);
    expect(await names({ start_date: yesterday, end_date: formatLocal(Date.now() + 60_000) })).toEqual(['Hoy']);
    expect(await names({ end_date: formatLocal(Date.now() - 60_000) })).toEqual([]);
    expect((await h.get(`/campaigns?start_date=${today}&limit=100`, a.apikey)).body.campaigns).toHaveLength(1);
  });

  it('refuses malformed parameters with 400 and a code', async () => {
    const a = await h.createAccount(1);
    const code = async (body: unknown) => {
      const r = await h.post('/campaigns', body, a.apikey);
      expect(r.status).toBe(400);
      return r.body.code;
    };
    expect(await code({ start_date: '2026-13-01' })).toBe('campaigns_02');
    expect(await code({ end_date: 'ayer' })).toBe('campaigns_03');
    expect(await code({ start_date: '2026-03-02', end_date: '2026-03-01' })).toBe('campaigns_04');
    expect(await code({ limit: 101 })).toBe('campaigns_05');
    expect(await code({ limit: '0' })).toBe('campaigns_05');
    expect(await code({ limit: 'x' })).toBe('campaigns_05');
    expect(await code({ sandbox: 2 })).toBe('campaigns_06');
    expect((await h.post('/campaigns', {}, 'wrong')).status).toBe(401);
  });
});
