import { expect, it } from 'vitest';
import { expectAccessible } from '../helpers/browser.js';
import { createOperator, describePanel, signIn, signOut } from '../helpers/panel.js';
import { bindClient, closed } from '../helpers/smpp-server.js';
import { addSmppUser } from '../../src/features/smpp-users/service.js';

const env = { SMPP_SERVER_PORT: '0', SMPP_SERVER_HOST: '127.0.0.1' };

/** The SMPP parts of the panel in Chromium: an account's SMPP users and the operator's live binds. */
describePanel('panel: SMPP users and binds in a browser', { env, freshCookies: true }, (panel) => {
  const port = () => panel.h.smpp!.port!;

  it('an account sees its SMPP users and sets a new password from the Integrations page', async () => {
    const { page, base, h, errors } = panel;
    const a = await panel.signedIn(5, 'smpp panel 1');
    const systemId = `web${a.id}`;
    await addSmppUser(h.ctx.db, a, { systemId, password: 'old1', maxBinds: 2 });
    const open = await bindClient(port(), systemId, 'old1', 'transmitter');
    expect(open.status).toBe(0);
    await page.goto(`${base}/panel/integrations#smpp`);
    const row = page.locator(`[data-testid=smpp-users] tr[data-system-id="${systemId}"]`);
    expect(await row.locator('[data-testid=smpp-binds]').textContent()).toBe('1');
    await expectAccessible(page);

    await row.locator('input[name=password]').fill('new2');
    await Promise.all([page.waitForLoadState('load'), row.locator('button[type=submit]').click()]);
    expect(await page.textContent('[role=status]')).toContain('Contraseña SMPP cambiada');
    expect(await page.content()).not.toContain('new2');
    expect((await bindClient(port(), systemId, 'old1')).status).toBe(0x0e);
    const again = await bindClient(port(), systemId, 'new2');
    expect(again.status).toBe(0);
    await expectAccessible(page);
    expect(errors).toEqual([]);
    for (const s of [open.session, again.session]) s.close();
    await signOut(page);
  });

  it('the operator sees live binds and closes one', async () => {
    const { page, base, h, engine, errors } = panel;
    const account = await h.createAccount(5);
    const systemId = `ops${account.id}`;
    await addSmppUser(h.ctx.db, account, { systemId, password: 'pw1' });
    const [first, second] = await Promise.all(
      (['transceiver', 'receiver'] as const).map((mode) => bindClient(port(), systemId, 'pw1', mode)),
    );
    await createOperator(h, `smpp-ops-${engine}@example.com`, 'operator secret 7');
    await signIn(page, base, `smpp-ops-${engine}@example.com`, 'operator secret 7');
    await page.goto(`${base}/panel/operator`);
    const rows = page.locator(`[data-testid=smpp-binds] tr[data-system-id="${systemId}"]`);
    expect(await rows.count()).toBe(2);
    await expectAccessible(page);

    const receiverRow = rows.filter({ hasText: 'receptor' }).filter({ hasNotText: 'transceptor' });
    await Promise.all([page.waitForLoadState('load'), receiverRow.locator('button[type=submit]').click()]);
    expect(await page.textContent('[role=status]')).toContain('Conexión cerrada');
    await closed(second.session);
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('transceptor');
    expect(first.session.socket.destroyed).toBe(false);
    expect(errors).toEqual([]);
    first.session.close();
  });
});
