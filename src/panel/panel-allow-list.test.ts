import { expect, it } from 'vitest';
import { runCommands } from '../../test/helpers/cli.js';
import { describePanel, withPassword } from '../../test/helpers/panel.js';
import { panelAction, panelPage, panelSignin } from '../../test/helpers/panel-http.js';
import { accountCommands } from '../features/accounts/cli.js';

/**
 * The account's IP allow-list applies to the panel when the account asks for
 * it (`accounts set --panel-allow-ip on`, or the box under the allow-list in
 * Integrations): sign-in and every signed-in request from elsewhere are refused.
 * The client address comes from X-Forwarded-For here (TRUST_PROXY is the test client).
 */
describePanel(
  'the panel behind the account allow-list',
  { over: 'http', env: { TRUST_PROXY: '127.0.0.1' } },
  (panel) => {
    let n = 0;
    const cli = (...args: string[]) => runCommands(panel.h.ctx, [accountCommands], [...args, '--json']);
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const INSIDE = from('10.1.2.3');
    const OUTSIDE = from('8.8.8.8');

    async function account(allow = '10.0.0.0/8') {
      const { h } = panel;
      const a = await withPassword(h, await h.createAccount(1, `panel${++n}@example.com`), 'panel pass 1');
      await cli('accounts', 'set', '--email', a.email, '--allow-ip', allow);
      return a;
    }

    it('is off by default: the allow-list guards the API only', async () => {
      const { h } = panel;
      const a = await account();
      const { session } = await panelSignin(h, a.email, a.password, OUTSIDE);
      expect(session).toBeDefined();
      expect((await panelPage(h, session!, '/panel/overview', OUTSIDE)).status).toBe(200);
    });

    it('when on, sign-in from outside gets the generic wrong-credentials answer, and a session is refused outside', async () => {
      const { h } = panel;
      const a = await account();
      const { session } = await panelSignin(h, a.email, a.password, OUTSIDE);
      expect(await cli('accounts', 'set', '--email', a.email, '--panel-allow-ip', 'on')).toMatchObject({
        panel_allow_ip: true,
      });

      const refused = await panelSignin(h, a.email, a.password, OUTSIDE);
      expect(refused.reply.status).toBe(401);
      expect(refused.session).toBeUndefined();
      const wrong = await panelSignin(h, a.email, 'not the password', OUTSIDE);
      // Word for word the answer to a wrong password: nothing tells that the password was right.
      expect(wrong.reply.status).toBe(401);
      for (const r of [refused, wrong]) expect(String(r.reply.body)).toContain('Correo o contraseña incorrectos.');
      expect(String(refused.reply.body)).not.toContain(a.apikey);

      // The session opened before the setting changed is refused from outside, on pages and forms alike.
      expect((await panelPage(h, session!, '/panel/overview', OUTSIDE)).status).toBe(403);
      expect(
        (await panelAction(h, session!, '/panel/integrations', '/panel/integrations/rotate-key', {}, OUTSIDE)).status,
      ).toBe(403);

      const inside = await panelSignin(h, a.email, a.password, INSIDE);
      expect(inside.session).toBeDefined();
      expect((await panelPage(h, inside.session!, '/panel/overview', INSIDE)).status).toBe(200);
      expect((await panelPage(h, inside.session!, '/panel/overview', OUTSIDE)).status).toBe(403);

      await cli('accounts', 'set', '--email', a.email, '--panel-allow-ip', 'off');
      expect((await panelPage(h, session!, '/panel/overview', OUTSIDE)).status).toBe(200);
    });

    it("a parent's setting covers its sub-accounts, with the sub-account's own list or else the parent's", async () => {
      const { h } = panel;
      const a = await account();
      await cli('accounts', 'set', '--email', a.email, '--panel-allow-ip', 'on');
      const email = `branch${n}@example.com`;
      const added = await h.request('POST', '/manager/subaccount/add', {
        apikey: a.apikey,
        body: { email, password: 'branch1' },
        headers: INSIDE,
      });
      expect(added.body.code).toBe('subaccount_01');
      expect((await panelSignin(h, email, 'branch1', OUTSIDE)).session).toBeUndefined();
      expect((await panelSignin(h, email, 'branch1', INSIDE)).session).toBeDefined();
      await cli('accounts', 'set', '--email', email, '--parent', a.email, '--allow-ip', '8.8.8.0/24');
      expect((await panelSignin(h, email, 'branch1', OUTSIDE)).session).toBeDefined();
    });

    it('the Integrations page turns it on, and refuses a setting that would shut out the address saving it', async () => {
      const { h } = panel;
      const a = await account('none');
      const { session } = await panelSignin(h, a.email, a.password, INSIDE);
      const page = await panelPage(h, session!, '/panel/integrations', INSIDE);
      expect(String(page.body)).toContain('name="panel_allow_ip"');

      const locked = await panelAction(
        h,
        session!,
        '/panel/integrations',
        '/panel/integrations/allow-list',
        { allow: '192.0.2.0/24', panel_allow_ip: '1' },
        INSIDE,
      );
      expect(locked.status).toBe(400);
      const row = () =>
        h.ctx.db.kysely
          .selectFrom('accounts')
          .select(['allow_ips', 'panel_allow_ip'])
          .where('id', '=', a.id)
          .executeTakeFirstOrThrow();
      expect(await row()).toEqual({ allow_ips: null, panel_allow_ip: 0 });

      const saved = await panelAction(
        h,
        session!,
        '/panel/integrations',
        '/panel/integrations/allow-list',
        { allow: '10.0.0.0/8', panel_allow_ip: '1' },
        INSIDE,
      );
      expect(saved.status).toBe(303);
      expect(await row()).toEqual({ allow_ips: JSON.stringify(['10.0.0.0/8']), panel_allow_ip: 1 });
      expect((await panelPage(h, session!, '/panel/overview', OUTSIDE)).status).toBe(403);
    });
  },
);
