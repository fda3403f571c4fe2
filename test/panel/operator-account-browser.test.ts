import { expect, it } from 'vitest';
import { accountSettings } from '../../src/features/accounts/settings.js';
import { findAccountById, LEDGER_PAGE_SIZE } from '../../src/accounts/index.js';
import { appendLedger } from '../../src/accounts/ledger.js';
import { listAudit } from '../../src/audit/service.js';
import { findCarrier, insertCarrier, listPublicRoutes } from '../../src/carriers/index.js';
import { parseSmppSettings } from '../../src/carriers/smpp/settings.js';
import { listPrefixPrices } from '../../src/features/prices/service.js';
import { accountSenders } from '../../src/features/sms/senders.js';
import { addCredits } from '../../src/features/accounts/admin.js';
import { expectAccessible } from '../helpers/browser.js';
import { createOperator, describePanel, signIn } from '../helpers/panel.js';

const ZONE = '(hora de la Ciudad de México)';

/** Each test walks a whole page in the browser, a dozen forms: more than the default 30 s on a loaded machine. */
const LONG = 120_000;

/** The operator's account page and the editable carriers, routes and prices, in Chromium, checked by the services' state. */
describePanel('panel: an account for the operator, carriers, routes and prices', { timeoutMs: 15_000 }, (panel) => {
  const operator = () => `acct-ops-${panel.engine}@example.com`;
  const audit = async (action: string) =>
    (await listAudit(panel.h.ctx.db.kysely, { since: 0, actor: operator() })).filter((e) => e.action === action);

  it(
    'edits an account from its page: settings, prices, senders, key, password link, credit history',
    async () => {
      const { page, base, h, errors } = panel;
      await createOperator(h, operator(), 'operator secret 9');
      const a = await h.createAccount(5);
      await addCredits(h.ctx.db, a.id, 30_000, { actor: 'cli', reason: 'bono de prueba' });
      await signIn(page, base, operator(), 'operator secret 9');
      await page.fill('#q', a.email);
      await Promise.all([page.waitForURL(/\?q=/), page.click('form[role=search] button')]);
      await page.click(`[data-testid=accounts] a[href="/panel/operator/account?id=${a.id}"]`);
      expect(await page.textContent('[data-testid=account-email]')).toBe(a.email);
      await expectAccessible(page);

      // The credit history: the entry with the balance it left and its time in Mexico City, labelled.
      const entry = page.locator('[data-testid=ledger] tr[data-kind=credit]');
      expect(await entry.textContent()).toContain('bono de prueba');
      expect(await entry.textContent()).toContain('Abono del operador');
      expect(await entry.textContent()).toContain(ZONE);

      // Settings: only what changed goes to `accounts set`'s service, recorded as accounts.set by panel:EMAIL.
      await page.fill('#set-rate_limit', '7');
      await page.fill('#set-senders', 'registered');
      await page.fill('#set-price_sms', '0.5');
      await Promise.all([page.waitForURL(/done=settings_saved/), page.click('[data-testid=account-settings] button')]);
      expect(await page.textContent('[role=status]')).toContain('Ajustes guardados');
      const settings = await accountSettings(h.ctx.db.kysely, (await findAccountById(h.ctx.db.kysely, a.id))!, 1);
      expect(settings).toMatchObject({ rate_limit_per_sec: 7, senders: 'registered', prices: { sms: 0.5 } });
      const [set] = await audit('accounts.set');
      expect(set).toMatchObject({
        actor: `panel:${operator()}`,
        detail: { rate_limit: '7', senders: 'registered', price_sms: '0.5' },
      });
      // A refused value: the service's reason in Spanish, never its English line nor a 500; nothing changes.
      await page.fill('#set-rate_limit', 'muchos');
      await page.click('[data-testid=account-settings] button');
      const refused = await page.textContent('[role=alert]');
      expect(refused).toContain('No se guardó nada: «muchos» no es un número.');
      expect(refused).not.toContain('not a number');
      expect(await page.inputValue('#set-rate_limit')).toBe('muchos');
      // A refusal naming a bound: the number in the page's format, no option name nor English word.
      await page.fill('#set-rate_limit', '');
      await page.fill('#set-max_per_number_hour', '0');
      await page.click('[data-testid=account-settings] button');
      const bound = await page.textContent('[role=alert]');
      expect(bound).toContain('los mensajes a un número por hora son un número entero de 1 a 1,000,000, o default.');
      expect(bound).not.toMatch(/--|whole number|is a /);
      expect((await audit('accounts.set')).length).toBe(1);

      // Its own prefix price, then a sender registered and removed.
      await page.selectOption('#acc-price-channel', 'sms');
      await page.fill('#acc-price-prefix', '5255');
      await page.fill('#acc-price-credits', '0.75');
      await Promise.all([page.waitForURL(/done=price_saved/), page.click('[data-testid=price-form] button')]);
      expect(await listPrefixPrices(h.ctx.db.kysely, a.id)).toMatchObject([
        { accountId: a.id, channel: 'sms', prefix: '5255', units: 7_500 },
      ]);
      expect((await audit('prices.set'))[0]).toMatchObject({ target: 'sms:5255', detail: { account_id: a.id } });
      await page.fill('#new-sender', 'MiTienda');
      await Promise.all([page.waitForURL(/done=sender_added/), page.click('text=Registrar remitente')]);
      expect(await accountSenders(h.ctx, a.id)).toEqual([{ name: 'MiTienda', rcs: false }]);
      await Promise.all([
        page.waitForURL(/done=sender_removed/),
        page.click('[data-testid=senders] tr[data-sender=MiTienda] button'),
      ]);
      expect(await accountSenders(h.ctx, a.id)).toEqual([]);
      expect((await audit('senders.remove'))[0]).toMatchObject({ detail: { sender: 'MiTienda' } });

      // The API key: a new one shown once; the old one stops.
      await page.click('text=Generar una clave nueva');
      const apikey = (await page.textContent('[data-testid=new-apikey]'))!.trim();
      expect(apikey).not.toBe(a.apikey);
      expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(401);
      expect((await h.post('/credits/consult', {}, apikey)).status).toBe(200);
      expect(JSON.stringify(await listAudit(h.ctx.db.kysely, { since: 0 }))).not.toContain(apikey);
      expect((await audit('accounts.rotate-key')).length).toBe(1);

      // The password link: shown once, the audit entry without its token.
      await page.click('text=Crear enlace');
      const url = (await page.textContent('[data-testid=reset-url]'))!.trim();
      expect(url).toMatch(/\/panel\/reset\?token=[\w-]+$/);
      expect(await page.textContent('.secret[role=status]')).toContain(ZONE);
      const token = url.split('token=')[1];
      const [reset] = await audit('accounts.password-reset');
      expect(JSON.stringify(reset)).not.toContain(token);
      await page.goto(`${base}/panel/operator/account?id=${a.id}`);
      expect(await page.locator('[data-testid=reset-url], [data-testid=new-apikey]').count()).toBe(0);
      expect(await page.locator('[data-testid=ledger-pages]').count()).toBe(0);

      // A longer credit history pages: the newest 100, then the older ones (the operator's credit, the first, last).
      const at = Date.now();
      await appendLedger(
        h.ctx.db.kysely,
        Array.from({ length: LEDGER_PAGE_SIZE }, (_, i) => ({
          kind: 'payment' as const,
          actor: 'cli',
          reason: `pago ${i + 1}`,
          accountId: a.id,
          units: 10_000,
          balanceAfter: 40_000 + i * 10_000,
        })),
        at,
      );
      await page.reload();
      const rows = page.locator('[data-testid=ledger] tbody tr');
      expect(await rows.count()).toBe(LEDGER_PAGE_SIZE);
      expect(await page.locator('[data-testid=ledger] tr[data-kind=credit]').count()).toBe(0);
      expect(await page.textContent('[data-testid=ledger-pages]')).toContain('Página 1');
      await Promise.all([page.waitForURL(/ledger_page=2/), page.click('text=Más antiguos')]);
      expect(await rows.count()).toBe(1);
      expect(await page.textContent('[data-testid=ledger] tr[data-kind=credit]')).toContain('bono de prueba');
      expect(await page.locator('[data-testid=ledger-pages] a[rel=next]').count()).toBe(0);
      await expectAccessible(page);
      await Promise.all([page.waitForURL(/ledger_page=1/), page.click('text=Más recientes')]);
      expect(await rows.count()).toBe(LEDGER_PAGE_SIZE);
      expect(errors).toEqual([]);
    },
    LONG,
  );

  it(
    'edits carriers, routes and prices from the operations page; the audit page in words and Mexico City time',
    async () => {
      const { page, base, h, errors } = panel;
      const smpp = parseSmppSettings({ host: '127.0.0.1', port: 9, system_id: 'panel' });
      await insertCarrier(h.ctx.db.kysely, { name: 'telco1', type: 'smpp', settings: smpp, passwordEnc: null });
      await page.goto(`${base}/panel/operator`);
      const row = page.locator('[data-testid=carriers] tr[data-carrier=telco1]');
      await row.locator('summary').click();
      await row.locator('input[name=throughput]').fill('25');
      await row.locator('input[name=min_delivery_rate]').fill('0.8');
      await Promise.all([page.waitForURL(/done=carrier_saved/), row.locator('form button').click()]);
      const stored = JSON.parse((await findCarrier(h.ctx.db.kysely, 'telco1'))!.settings);
      expect(stored).toMatchObject({ throughput: 25, host: '127.0.0.1', port: 9 });
      expect((await audit('carriers.set'))[0]).toMatchObject({
        target: 'telco1',
        detail: { throughput: 25, min_delivery_rate: '0.8' },
      });
      // A refused setting is the form's message.
      await row.locator('summary').click();
      await row.locator('input[name=port]').fill('99999');
      await row.locator('form button').click();
      const carrierRefused = await page.textContent('[role=alert]');
      expect(carrierRefused).toContain('No se guardó el operador: el valor de «Puerto» no es válido.');
      expect(carrierRefused).not.toMatch(/port:|Number must|too_big/i);
      await row.locator('summary').click();
      await row.locator('input[name=quality_window_minutes]').fill('0');
      await row.locator('form button').click();
      expect(await page.textContent('[role=alert]')).toContain(
        'No se guardó el operador: la ventana de calidad es un número entero de minutos de 1 a 1,440.',
      );

      await page.goto(`${base}/panel/operator`);
      await page.fill('#route-prefix', '5233');
      await page.fill('#route-carriers', 'telco1');
      await Promise.all([page.waitForURL(/done=route_added/), page.click('[data-testid=route-form] button')]);
      const route = (await listPublicRoutes(h.ctx.db.kysely)).find((r) => r.prefix === '5233')!;
      expect(route).toMatchObject({ channel: 'sms', carriers: ['telco1'], account: null });
      await page.fill('#route-prefix', '5234');
      await page.fill('#route-carriers', 'nadie');
      await page.click('[data-testid=route-form] button');
      expect(await page.textContent('[role=alert]')).toContain(
        'No se guardó la ruta: no hay un operador llamado nadie.',
      );
      await page.fill('#route-prefix', '5234');
      await page.fill('#route-carriers', 'telco1, telco1');
      await page.click('[data-testid=route-form] button');
      expect(await page.textContent('[role=alert]')).toContain(
        'No se guardó la ruta: la ruta nombra dos veces a un operador.',
      );
      expect(await page.textContent('[role=alert]')).not.toContain('connector');
      await page.goto(`${base}/panel/operator`);
      await Promise.all([
        page.waitForURL(/done=route_removed/),
        page.click(`[data-testid=routes] tr[data-route="${route.id}"] button`),
      ]);
      expect((await listPublicRoutes(h.ctx.db.kysely)).some((r) => r.id === route.id)).toBe(false);

      await page.fill('#op-price-prefix', '57');
      await page.fill('#op-price-credits', '2');
      await Promise.all([page.waitForURL(/done=price_saved/), page.click('[data-testid=price-form] button')]);
      expect((await listPrefixPrices(h.ctx.db.kysely)).find((p) => p.prefix === '57')).toMatchObject({
        accountId: 0,
        units: 20_000,
      });
      await page.fill('#op-price-prefix', 'abc');
      await page.fill('#op-price-credits', '2');
      await page.click('[data-testid=price-form] button');
      expect(await page.textContent('[role=alert]')).toContain('Precio no válido');
      await page.goto(`${base}/panel/operator`);
      const carriersText = await page.textContent('[data-testid=carriers]');
      expect(carriersText).not.toMatch(/\(smpp\)|\(simulator\)/);
      await expectAccessible(page);

      await page.goto(`${base}/panel/operator/audit`);
      const audited = page.locator('[data-testid=audit] tr[data-action="carriers.set"]');
      expect(await audited.locator('td.detail').textContent()).toMatch(/mensajes por segundo\s*:?\s*25/);
      expect(await audited.textContent()).toContain(ZONE);
      expect(await page.textContent('main')).not.toContain('UTC');
      // The detail column stays within the page.
      const overflow = await page.evaluate(() =>
        [...document.querySelectorAll('td.detail')].some((td) => td.scrollWidth > td.clientWidth + 1),
      );
      expect(overflow).toBe(false);
      await expectAccessible(page);
      expect(errors).toEqual([]);
    },
    LONG,
  );
});
