import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { parseLocal } from '../../lib/time.js';
import { applyDeliveryReports } from '../../messaging/delivery.js';
import { dispatchMessages } from '../../messaging/dispatch.js';
import type { SendRequest } from '../../messaging/types.js';
import { around, tools } from './testing.js';

/** Reports and campaign details as the spec shows them. Refusals: reports-errors.test.ts; isolation: reports-security.test.ts. */
describeEngines('reports (worker stopped: every status held still)', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // Two rows per page, so every multi-row test crosses page boundaries.
    h = await startHarness(engine, { worker: false, env: { REPORTS_PAGE_ROWS: '2', REPORTS_PER_MINUTE: '1000' } });
  });
  afterAll(() => h.close());
  const { submit, generate, setCreated } = tools(() => h);

  it('answers report_04 with one row per message, every field a string', async () => {
    const a = await h.createAccount(100);
    const res = await submit(a.id, ['5512345678'], { campaignName: 'Promo <b>"junio"</b>', text: 'Hola ñandú' });
    const r = await generate(a.apikey);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ success: true, message: 'report_generated', status: 200, code: 'report_04' });
    expect(r.body.report).toHaveLength(1);
    const row = r.body.report[0];
    expect(row).toEqual({
      name: 'Promo <b>"junio"</b>',
      created_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      reference: res.references[0].reference,
      number: '525512345678',
      message: 'Hola ñandú',
      sent_date: '',
      status: 'queued',
      status_code: '',
      operator: '',
      type: 'sms',
    });
    const created = parseLocal(row.created_date)!;
    expect(Math.abs(created - Date.now())).toBeLessThan(60_000);
  });

  it('shows each delivery status code as its word, with operator and sent date', async () => {
    const a = await h.createAccount(100);
    const numbers = Array.from({ length: 13 }, (_, nn) => `55500000${String(nn).padStart(2, '0')}`);
    const res = await submit(a.id, [...numbers, '5559999001', '5511111111', '5512121212']);
    const sentIds = res.messageIds.slice(0, 15);
    await dispatchMessages(h.ctx, sentIds);
    await applyDeliveryReports(
      h.ctx,
      res.messageIds.slice(0, 13).map((messageId, code) => ({ messageId, code, at: Date.now() })),
    );
    // The 16th message stays queued; a scheduled campaign waits.
    const scheduled = await submit(a.id, ['5522222222'], { scheduledAt: Date.now() + 3_600_000 });
    const rows = (await generate(a.apikey)).body.report as Array<Record<string, string>>;
    const byRef = new Map(rows.map((r) => [r.reference, r]));
    expect(rows).toHaveLength(17);
    const words = [
      'delivered',
      'not delivered',
      'temporary disconnection',
      'expired',
      'rejected',
      'unknown',
      'unknown number',
      'incorrect format',
      'error',
      'phishing',
      'blacklist',
      'landline number',
      'country not contracted',
    ];
    words.forEach((word, code) => {
      const row = byRef.get(res.references[code].reference)!;
      expect(row).toMatchObject({
        status: word,
        status_code: String(code),
        operator: 'simulator',
        number: `52${numbers[code]}`,
      });
      expect(row.sent_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });
    expect(byRef.get(res.references[13].reference)).toMatchObject({
      status: 'rejected',
      status_code: '4',
      operator: 'simulator',
    });
    expect(byRef.get(res.references[14].reference)).toMatchObject({
      status: 'sent',
      status_code: '',
      operator: 'simulator',
    });
    expect(byRef.get(res.references[15].reference)).toMatchObject({ status: 'queued', sent_date: '', operator: '' });
    expect(byRef.get(scheduled.references[0].reference)).toMatchObject({ status: 'scheduled', sent_date: '' });
  });

  it('names the type after the source, and the channel for SMS', async () => {
    const a = await h.createAccount(100);
    const kinds: Array<[SendRequest['channel'], SendRequest['source'], string]> = [
      ['sms', 'sms', 'sms'],
      ['rcs', 'sms', 'rcs'],
      ['chatapp', 'chatapp', 'chatapp'],
      ['voice', 'voice', 'voice'],
      ['sms', 'otp', 'otp'],
      ['sms', 'payment', 'payment'],
    ];
    const refs = new Map<string, string>();
    for (const [channel, source, type] of kinds)
      refs.set((await submit(a.id, ['5533333333'], { channel, source })).references[0].reference, type);
    const rows = (await generate(a.apikey)).body.report as Array<Record<string, string>>;
    expect(rows).toHaveLength(kinds.length);
    for (const row of rows) expect(row.type).toBe(refs.get(row.reference));
  });

  it('returns every message of the period once, in time order, across pages and equal timestamps', async () => {
    const a = await h.createAccount(100);
    const base = parseLocal('2026-05-04 10:00:00')!;
    const first = await submit(a.id, ['5510000001', '5510000002', '5510000003']);
    const second = await submit(a.id, ['5510000004', '5510000005']);
    const third = await submit(a.id, ['5510000006', '5510000007']);
    // Five rows share one timestamp, so page boundaries fall inside a run of equal created_at.
    await setCreated([...first.messageIds, ...second.messageIds], base);
    await setCreated(third.messageIds, base - 1000);
    const rows = (await generate(a.apikey, { start_date: '2026-05-04', end_date: '2026-05-04' })).body.report as Array<
      Record<string, string>
    >;
    const expected = [...third.references, ...first.references, ...second.references].map((r) => r.reference);
    expect(rows.map((r) => r.reference)).toEqual(expected);
    expect(rows[0].created_date).toBe('2026-05-04 09:59:59');
    expect(rows[2].created_date).toBe('2026-05-04 10:00:00');
  });

  it('answers an empty array for a period without messages, and an exact page multiple ends cleanly', async () => {
    const a = await h.createAccount(100);
    expect((await generate(a.apikey)).body).toMatchObject({ code: 'report_04', report: [] });
    await submit(a.id, ['5510000001', '5510000002', '5510000003', '5510000004']);
    expect((await generate(a.apikey)).body.report).toHaveLength(4);
  });

  it('counts whole days in America/Mexico_City: 23:30 local belongs to that day', async () => {
    const a = await h.createAccount(100);
    const res = await submit(a.id, [
      '5510000001',
      '5510000002',
      '5510000003',
      '5510000004',
      '5510000005',
      '5510000006',
    ]);
    const at = [
      '2026-03-09 23:59:59',
      '2026-03-10 00:00:00',
      '2026-03-10 23:30:00',
      '2026-03-10 23:59:59',
      '2026-03-11 00:00:00',
      '2026-03-11 05:00:00',
    ].map((t) => parseLocal(t)!);
    for (let i = 0; i < at.length; i++) await setCreated([res.messageIds[i]], at[i]);
    // 23:30 in Mexico City on the 10th is 05:30 UTC on the 11th.
    expect(new Date(at[2]).toISOString()).toBe('2026-03-11T05:30:00.000Z');
    const day = (await generate(a.apikey, { start_date: '2026-03-10', end_date: '2026-03-10' })).body.report as Array<
      Record<string, string>
    >;
    expect(day.map((r) => r.reference)).toEqual(res.references.slice(1, 4).map((r) => r.reference));
    expect(day.map((r) => r.created_date)).toEqual([
      '2026-03-10 00:00:00',
      '2026-03-10 23:30:00',
      '2026-03-10 23:59:59',
    ]);
    const twoDays = (await generate(a.apikey, { start_date: '2026-03-10', end_date: '2026-03-11' })).body.report;
    expect(twoDays).toHaveLength(5);
    // A summer day of 2021, when Mexico City kept DST (UTC-5).
    const summer = await submit(a.id, ['5510000007']);
    await setCreated(summer.messageIds, Date.UTC(2021, 6, 2, 4, 30));
    const july1 = (await generate(a.apikey, { start_date: '2021-07-01', end_date: '2021-07-01' })).body.report;
    expect(july1).toHaveLength(1);
    expect(july1[0].created_date).toBe('2021-07-01 23:30:00');
  });

  it('filters sandbox messages: only with sandbox 1, never by default', async () => {
    const a = await h.createAccount(100);
    const real = await submit(a.id, ['5510000001']);
    const test = await submit(a.id, ['5510000002', '5510000003'], { sandbox: true });
    const refs = async (body: Record<string, unknown>) =>
      ((await generate(a.apikey, { ...around(), ...body })).body.report as Array<Record<string, string>>).map(
        (r) => r.reference,
      );
    expect(await refs({})).toEqual([real.references[0].reference]);
    expect(await refs({ sandbox: 0 })).toEqual([real.references[0].reference]);
    expect(await refs({ sandbox: '0' })).toEqual([real.references[0].reference]);
    expect(await refs({ sandbox: 1 })).toEqual(test.references.map((r) => r.reference));
    expect(await refs({ sandbox: true })).toEqual(test.references.map((r) => r.reference));
    const rows = (await generate(a.apikey, { ...around(), sandbox: '1' })).body.report;
    expect(rows[0]).toMatchObject({ status: 'sandbox', sent_date: '', operator: '' });
  });

  it('accepts a form body', async () => {
    const a = await h.createAccount(100);
    await submit(a.id, ['5510000001']);
    const r = await h.request('POST', '/reports/generate', { apikey: a.apikey, form: { ...around(), sandbox: '0' } });
    expect(r.status).toBe(200);
    expect(r.body.report).toHaveLength(1);
  });

  it('details: counts a campaign by outcome; pending, failed and delivered add up to totals', async () => {
    const a = await h.createAccount(100);
    // delivered, delivered, unknown number (6), refused by the carrier, sent (no report yet), queued
    const res = await submit(a.id, [
      '5510000001',
      '5510000002',
      '5550000006',
      '5559999001',
      '5510000005',
      '5510000006',
    ]);
    await dispatchMessages(h.ctx, res.messageIds.slice(0, 5));
    const at = Date.now();
    await applyDeliveryReports(
      h.ctx,
      [0, 0, 6].map((code, i) => ({ messageId: res.messageIds[i], code, at })),
    );
    const r = await h.post('/reports/details', { campaign_id: res.campaignId }, a.apikey);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: 'campaign_details',
      status: 200,
      code: 'details_01',
      details: { effectiveness: 33.33, totals: 6, delivered: 2, failed: 2, pending: 2, not_charged: 1 },
    });
    // Form body, campaign_id as text.
    const form = await h.request('POST', '/reports/details', {
      apikey: a.apikey,
      form: { campaign_id: String(res.campaignId), sandbox: '0' },
    });
    expect(form.body.details.totals).toBe(6);
  });

  it('details: a fully delivered campaign is 100 percent effective', async () => {
    const a = await h.createAccount(100);
    const res = await submit(a.id, ['5510000001', '5510000002']);
    await dispatchMessages(h.ctx, res.messageIds);
    await applyDeliveryReports(
      h.ctx,
      res.messageIds.map((messageId) => ({ messageId, code: 0, at: Date.now() })),
    );
    expect((await h.post('/reports/details', { campaign_id: res.campaignId }, a.apikey)).body.details).toEqual({
      effectiveness: 100,
      totals: 2,
      delivered: 2,
      failed: 0,
      pending: 0,
      not_charged: 0,
    });
  });

  it('details: a sandbox campaign needs sandbox 1 and was not charged', async () => {
    const a = await h.createAccount(100);
    const res = await submit(a.id, ['5510000001', '5510000002', '5510000003'], { sandbox: true });
    expect(
      (await h.post('/reports/details', { campaign_id: res.campaignId, sandbox: 1 }, a.apikey)).body.details,
    ).toEqual({
      effectiveness: 0,
      totals: 3,
      delivered: 0,
      failed: 0,
      pending: 0,
      not_charged: 3,
    });
    const r = await h.post('/reports/details', { campaign_id: res.campaignId }, a.apikey);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, status: 404, code: 'details_02' });
    const real = await submit(a.id, ['5510000001']);
    expect((await h.post('/reports/details', { campaign_id: real.campaignId, sandbox: 1 }, a.apikey)).body.code).toBe(
      'details_02',
    );
  });

  it('documents both routes in /openapi.json', async () => {
    const doc = (await h.get('/openapi.json')).body;
    expect(doc.paths['/reports/generate'].post.tags).toEqual(['reports']);
    expect(doc.paths['/reports/details'].post.requestBody).toBeTruthy();
  });
});

describeEngines('reports with the simulated carrier', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { REPORTS_PER_MINUTE: '3', SIMULATOR_DLR_DELAY_MS: '10' } });
  });
  afterAll(() => h.close());
  const { submit, generate } = tools(() => h);

  it('shows a message to 5550000006 reach status 6 (unknown number)', async () => {
    const a = await h.createAccount(10);
    const res = await submit(a.id, ['5550000006']);
    h.ctx.worker.nudge();
    await eventually(
      async () =>
        (
          await h.ctx.db.kysely
            .selectFrom('messages')
            .select('stage')
            .where('id', '=', res.messageIds[0])
            .executeTakeFirst()
        )?.stage === 2,
      15_000,
    );
    const row = (await generate(a.apikey)).body.report[0];
    expect(row).toMatchObject({
      reference: res.references[0].reference,
      number: '525550000006',
      status: 'unknown number',
      status_code: '6',
      operator: 'simulator',
      type: 'sms',
    });
    expect(row.sent_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('streams a page larger than one 32 KB chunk as one valid JSON document', async () => {
    const a = await h.createAccount(1000);
    const numbers = Array.from({ length: 300 }, (_, i) => `55${String(20000000 + i)}`);
    const res = await submit(a.id, numbers, { text: `Ñandú ${'x'.repeat(150)}` });
    const r = await generate(a.apikey);
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body).length).toBeGreaterThan(100_000);
    expect((r.body.report as Array<{ reference: string }>).map((row) => row.reference)).toEqual(
      res.references.map((x) => x.reference),
    );
  });
});
