import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { runCommands } from '../helpers/cli.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { auditCommands } from '../../src/audit/cli.js';
import { recordAudit } from '../../src/audit/service.js';

/** GET /operator/v1/audit and `audit list --page`: 500 entries a page, newest first, nothing skipped or repeated. */
describeEngines('the audit log by pages', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (path: string) => api.call('GET', path, { token });
  const cli = (...args: string[]) => runCommands(api.h.ctx, [auditCommands], ['audit', 'list', ...args, '--json']);
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('auditor', true);
    // 1,003 entries of one actor: two full pages and three more.
    await api.h.ctx.db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 1003; i++)
        await recordAudit(trx, { actor: 'token:bulk', action: 'prices.set', target: `sms:${i}`, detail: { i } });
    });
  }, 120_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('answers pages of 500 with has_more, together every entry once, newest first', async () => {
    const pages = [];
    for (let page = 1; page <= 4; page++) pages.push((await call(`/audit?actor=bulk&page=${page}`)).body);
    expect(pages.map((p) => [p.page, p.entries.length, p.has_more])).toEqual([
      [1, 500, true],
      [2, 500, true],
      [3, 3, false],
      [4, 0, false],
    ]);
    const seen = pages.flatMap((p) => p.entries.map((e: { detail: { i: number } }) => e.detail.i));
    expect(seen).toEqual(Array.from({ length: 1003 }, (_, i) => 1002 - i));
    expect(pages[0].entries[0]).toEqual({
      at: expect.any(String),
      actor: 'token:bulk',
      action: 'prices.set',
      target: 'sms:1002',
      detail: { i: 1002 },
      address: null,
    });
    // The defaults: the last 24 hours, every actor, page 1.
    const first = (await call('/audit')).body;
    expect([first.page, first.entries.length, first.has_more]).toEqual([1, 500, true]);
    expect((await call('/audit?since=2999-01-01')).body).toEqual({ entries: [], page: 1, has_more: false });
    for (const query of ['since=yesterday', 'page=0', 'page=x', 'page=10001', 'since=99999999m']) {
      const bad = await call(`/audit?${query}`);
      expect([bad.status, bad.body.code], query).toEqual([400, 'op_audit_invalid']);
    }
  });

  it('audit list --page gives the same pages', async () => {
    const second = await cli('--actor', 'bulk', '--page', '2');
    expect([second.page, second.entries.length, second.has_more]).toEqual([2, 500, true]);
    expect(second.entries).toEqual((await call('/audit?actor=bulk&page=2')).body.entries);
    expect((await cli('--actor', 'bulk', '--page', '3')).has_more).toBe(false);
    expect((await cli('--page', '0')).error).toContain('--page is a whole number');
    expect(api.validated).toBeGreaterThan(8);
  });
});
