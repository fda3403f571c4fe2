import { expect, it } from 'vitest';
import { createOperator, describePanel, signIn } from '../helpers/panel.js';
import { expectAccessible } from '../helpers/browser.js';
import { runCommands } from '../helpers/cli.js';
import { carrierCommands } from '../../src/carriers/cli.js';
import { closeEpisode, openEpisode } from '../../src/alerts/episodes.js';

/** The low-balance threshold in an account's settings, and the alerts in the operator view. */
describePanel('panel: low balance and operator alerts', { freshCookies: true }, (panel) => {
  const thresholdOf = async (id: number) =>
    (
      await panel.h.ctx.db.kysely
        .selectFrom('accounts')
        .select(['low_balance_units', 'low_balance_sent'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).low_balance_units;

  it('an account sets, refuses a wrong value for, and clears its low-balance threshold', async () => {
    const { page, base } = panel;
    const a = await panel.signedIn(10, 'low balance 1');
    await page.goto(`${base}/panel/account`);
    const save = async (value: string) => {
      await page.fill('[data-testid=low-balance]', value);
      await Promise.all([
        page.waitForLoadState('load'),
        page.click('form[action="/panel/account/low-balance"] button'),
      ]);
    };
    await save('2.5');
    await expect.poll(() => thresholdOf(a.id)).toBe(25_000);
    expect(await page.inputValue('[data-testid=low-balance]')).toBe('2.5');
    expect(await page.textContent('body')).toContain('Umbral guardado.');
    await expectAccessible(page);

    await save('0');
    expect(await page.textContent('body')).toContain('El umbral es un número mayor que cero');
    expect(await thresholdOf(a.id)).toBe(25_000);

    await save('');
    await expect.poll(() => thresholdOf(a.id)).toBeNull();
    expect(await page.inputValue('[data-testid=low-balance]')).toBe('');
  });

  it('the operator view lists open and closed alert episodes', async () => {
    const { page, base, h } = panel;
    const config = h.ctx.config;
    // A connector that exists and never binds: the evaluator keeps its episode open.
    const added = await runCommands(
      h.ctx,
      [carrierCommands],
      [
        ...['carriers', 'add', 'smpp', '--name', 'smsc-norte', '--host', '127.0.0.1', '--port', '9'],
        ...['--system-id', 'acme', '--password', 'secret1', '--json'],
      ],
    );
    expect(added.error).toBeUndefined();
    await h.ctx.db.kysely.transaction().execute(async (trx) => {
      const since = Date.parse('2026-03-01T10:00:00Z');
      const body = { type: 'carrier_down' as const, carrier: 'smsc-norte', since: new Date(since).toISOString() };
      await openEpisode(trx, config, { type: 'carrier_down', subject: 'smsc-norte', since, body });
      const queued = { type: 'queue_delayed' as const, since: new Date(since).toISOString() };
      await openEpisode(trx, config, { type: 'queue_delayed', subject: '', since, body: queued });
      await closeEpisode(trx, config, 'queue_delayed', '');
    });
    await createOperator(h, `ops-${panel.engine}@example.com`, 'operator secret 1');
    await signIn(page, base, `ops-${panel.engine}@example.com`, 'operator secret 1');
    await page.goto(`${base}/panel/operator`);
    const rows = await page.$$eval('[data-testid=alerts] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())),
    );
    // In the panel's words, at Mexico City time (UTC−6 in March), labelled.
    const since = '2026-03-01 04:00:00 (hora de la Ciudad de México)';
    expect(rows).toContainEqual(['operador caído', 'smsc-norte', 'Abierta', since, '']);
    expect(rows).toContainEqual(['cola retrasada', 'Cola de trabajos', 'Cerrada', since, expect.any(String)]);
    await expectAccessible(page);
  });
});
