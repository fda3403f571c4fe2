import { expect, it } from 'vitest';
import { describePanel } from '../helpers/panel.js';
import { ask, bindClient, smppCustomer } from '../helpers/smpp-server.js';
import type { Harness } from '../helpers/harness.js';
import { createSession, SESSION_COOKIE } from '../../src/panel/session.js';
import { findSmppUser } from '../../src/features/smpp-users/store.js';
import { addSmppUser } from '../../src/features/smpp-users/service.js';

const NOTICE = /<p class="notice" role="status">([^<]*)<\/p>/;
const ALERT = /<p class="error" role="alert">([^<]*)<\/p>/;
const SMPP_PANEL_ENV = { SMPP_SERVER_PORT: '0', SMPP_SERVER_HOST: '127.0.0.1' };

/** A session of the account over plain HTTP: its pages and the Integrations page's SMPP password form. */
async function accountPanel(h: Harness, accountId: number) {
  const cookie = `${SESSION_COOKIE}=${await createSession(h.ctx.db.kysely, 'account', accountId, 1)}`;
  const page = async (url = '/panel/integrations') =>
    (await h.request('GET', url, { headers: { cookie } })).body as string;
  const setPassword = async (form: Record<string, string>, csrf?: string) =>
    h.request('POST', '/panel/integrations/smpp-password', {
      headers: { cookie },
      form: { _csrf: csrf ?? /name="_csrf" value="([^"]+)"/.exec(await page())![1], ...form },
    });
  return { cookie, page, setPassword };
}

/** The cells of the SMPP users table, one array per row. */
const userRows = (body: string) =>
  [...body.matchAll(/<tr data-system-id="([^"]+)">([\s\S]*?)<\/tr>/g)].map(([, id, row]) => ({
    id,
    cells: [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].slice(0, 6).map((m) => m[1].trim()),
  }));

/** The Integrations page's SMPP users of the signed-in account, and a new password for one of them. */
describePanel('panel: SMPP users on the Integrations page', { over: 'http', env: SMPP_PANEL_ENV }, (panel) => {
  const port = () => panel.h.smpp!.port!;

  it("lists the account's SMPP users with their limits and open binds; a sub-account sees only its own", async () => {
    const { h } = panel;
    const parent = await smppCustomer(h, 10, { maxBinds: 3, throughput: 0, window: 5 });
    const stranger = await smppCustomer(h, 0);
    const fenced = { systemId: `${parent.systemId}b`, password: 'pw2', allowIps: '["127.0.0.0/8","10.0.0.0/8"]' };
    await addSmppUser(h.ctx.db, parent, fenced);
    const sub = await h.createAccount(5);
    await h.ctx.db.kysely.updateTable('accounts').set({ parent_id: parent.id }).where('id', '=', sub.id).execute();
    await addSmppUser(h.ctx.db, sub, { systemId: `sub${sub.id}`, password: 'subpw' });
    const binds = await Promise.all([1, 2].map(() => bindClient(port(), parent.systemId, parent.password)));
    expect(binds.map((b) => b.status)).toEqual([0, 0]);

    const rows = userRows(await (await accountPanel(h, parent.id)).page());
    expect(rows).toEqual([
      { id: parent.systemId, cells: [parent.systemId, '3', 'sin límite', '5', 'las de la cuenta', '2'] },
      { id: fenced.systemId, cells: [fenced.systemId, '4', '100', '10', '127.0.0.0/8, 10.0.0.0/8', '0'] },
    ]);
    const subRows = userRows(await (await accountPanel(h, sub.id)).page());
    expect(subRows.map((r) => r.id)).toEqual([`sub${sub.id}`]);
    expect(rows.map((r) => r.id)).not.toContain(stranger.systemId);
    for (const b of binds) b.session.close();
  });

  it('shows no SMPP card to an account without SMPP users', async () => {
    const a = await panel.h.createAccount(1);
    const body = await (await accountPanel(panel.h, a.id)).page();
    expect(body).toContain('id="log-title"');
    expect(body).not.toContain('id="smpp-title"');
  });

  it('sets a new password (CSRF, 1 to 8 characters, never echoed); the next bind needs it, open binds stay', async () => {
    const { h } = panel;
    const c = await smppCustomer(h, 10);
    const p = await accountPanel(h, c.id);
    const open = await bindClient(port(), c.systemId, c.password, 'transmitter');
    expect(open.status).toBe(0);
    const hashBefore = (await findSmppUser(h.ctx.db.kysely, c.systemId))!.password_hash;

    const forged = await p.setPassword({ system_id: c.systemId, password: 'forged1' }, 'not-the-token');
    expect(forged.status).toBe(403);
    const tooLong = await p.setPassword({ system_id: c.systemId, password: 'nine char' });
    expect(tooLong.status).toBe(400);
    expect(ALERT.exec(tooLong.body)?.[1]).toBe('La contraseña SMPP debe tener de 1 a 8 caracteres ASCII imprimibles.');
    expect(tooLong.body).not.toContain('nine char');
    expect((await p.setPassword({ system_id: c.systemId, password: 'ñandú' })).status).toBe(400);
    expect((await p.setPassword({ system_id: c.systemId, password: '' })).status).toBe(400);
    expect((await findSmppUser(h.ctx.db.kysely, c.systemId))!.password_hash).toBe(hashBefore);

    const done = await p.setPassword({ system_id: c.systemId, password: 'n3w pass' });
    expect(done.status).toBe(303);
    expect(NOTICE.exec(await p.page(done.headers.location as string))?.[1]).toBe(
      'Contraseña SMPP cambiada: vale desde la próxima conexión.',
    );
    const stored = (await findSmppUser(h.ctx.db.kysely, c.systemId))!.password_hash;
    expect(stored).toMatch(/^scrypt\$/);
    expect(stored).not.toContain('n3w pass');
    expect((await bindClient(port(), c.systemId, c.password)).status).toBe(0x0e);
    const again = await bindClient(port(), c.systemId, 'n3w pass');
    expect(again.status).toBe(0);
    expect((await ask(open.session, 'enquire_link')).command_status).toBe(0);
    for (const s of [open.session, again.session]) s.close();
  });

  it("refuses another account's SMPP user, a sub-account's included, and changes nothing", async () => {
    const { h } = panel;
    const parent = await smppCustomer(h, 10);
    const other = await smppCustomer(h, 10);
    const sub = await smppCustomer(h, 10);
    await h.ctx.db.kysely.updateTable('accounts').set({ parent_id: parent.id }).where('id', '=', sub.id).execute();
    const p = await accountPanel(h, parent.id);
    for (const systemId of [other.systemId, sub.systemId, 'nobody', 'x'.repeat(300)]) {
      const refused = await p.setPassword({ system_id: systemId, password: 'takeover' });
      expect(refused.status).toBe(404);
      expect(ALERT.exec(refused.body)?.[1]).toBe('Esta cuenta no tiene ese usuario SMPP.');
    }
    const ofSub = await accountPanel(h, sub.id);
    expect((await ofSub.setPassword({ system_id: parent.systemId, password: 'takeover' })).status).toBe(404);
    const binds = await Promise.all(
      [other, sub, parent].map((c) => bindClient(port(), c.systemId, c.password, 'transmitter')),
    );
    expect(binds.map((b) => b.status)).toEqual([0, 0, 0]);
    for (const b of binds) b.session.close();
  });
});
